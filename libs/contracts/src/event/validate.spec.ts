import fc from 'fast-check';
import { validateEvent } from './validate';
import { MAX_EVENT_TIME_SKEW_MS, type ClickEvent } from './types';
import { NOW, sampleEvent } from '../../test/fixtures';
import { validEvent } from '../../test/arbitraries';

const reasonOf = (overrides: Partial<ClickEvent>): string => {
  const result = validateEvent(sampleEvent(overrides), NOW);
  return result.ok ? 'ok' : result.reason;
};

describe('validateEvent', () => {
  it('accepts every contract-valid event', () => {
    fc.assert(
      fc.property(validEvent, (event) => expect(validateEvent(event, NOW)).toEqual({ ok: true })),
    );
  });

  it.each<[string, string, Partial<ClickEvent>]>([
    ['empty event_id', 'invalid_field', { event_id: '' }],
    ['non-uuid event_id', 'invalid_field', { event_id: 'not-a-uuid' }],
    ['uppercase uuid', 'invalid_field', { event_id: 'A3BB189E-8BF9-3888-9912-ACE4E6543002' }],
    ['empty run_id', 'invalid_field', { run_id: '' }],
    ['empty session_id', 'invalid_field', { session_id: '' }],
    ['negative seq', 'invalid_field', { seq: -1 }],
    [
      'event_time a week and a ms ahead',
      'absurd_event_time',
      { event_time: NOW + MAX_EVENT_TIME_SKEW_MS + 1 },
    ],
    [
      'event_time a week and a ms behind',
      'absurd_event_time',
      { event_time: NOW - MAX_EVENT_TIME_SKEW_MS - 1 },
    ],
    ['event_time exactly a week behind', 'ok', { event_time: NOW - MAX_EVENT_TIME_SKEW_MS }],
    [
      'product_view without product',
      'missing_product',
      { event_type: 'product_view', product_id: null },
    ],
    [
      'add_to_cart with empty product',
      'missing_product',
      { event_type: 'add_to_cart', product_id: '', quantity: 1 },
    ],
    [
      'remove_from_cart without quantity',
      'invalid_quantity',
      { event_type: 'remove_from_cart', product_id: 'p', quantity: null },
    ],
    [
      'add_to_cart with zero quantity',
      'invalid_quantity',
      { event_type: 'add_to_cart', product_id: 'p', quantity: 0 },
    ],
    [
      'add_to_cart with negative quantity',
      'invalid_quantity',
      { event_type: 'add_to_cart', product_id: 'p', quantity: -2 },
    ],
    ['payment without amount', 'missing_amount', { amount_cents: null }],
    [
      'payment without currency',
      'missing_amount',
      { event_type: 'payment_failed', currency: null },
    ],
    ['payment with negative amount', 'negative_amount', { amount_cents: -1 }],
    [
      'page_view with negative amount',
      'negative_amount',
      { event_type: 'page_view', amount_cents: -5, currency: null },
    ],
    ['payment in an unknown currency', 'unknown_currency', { currency: 'XBT' }],
    [
      'page_view with an unknown currency',
      'unknown_currency',
      { event_type: 'page_view', amount_cents: null, currency: 'eur' },
    ],
    ['zero amount', 'ok', { amount_cents: 0 }],
    [
      'checkout_started without amount',
      'ok',
      { event_type: 'checkout_started', amount_cents: null, currency: null },
    ],
  ])('%s -> %s', (_name, reason, overrides) => {
    expect(reasonOf(overrides)).toBe(reason);
  });

  it('applies the documented order when several rules are broken', () => {
    expect(reasonOf({ event_id: 'x', event_time: 0 })).toBe('invalid_field');
    expect(reasonOf({ event_time: 0, event_type: 'add_to_cart', product_id: null })).toBe(
      'absurd_event_time',
    );
    expect(reasonOf({ event_type: 'add_to_cart', product_id: null, quantity: 0 })).toBe(
      'missing_product',
    );
    expect(
      reasonOf({ event_type: 'add_to_cart', product_id: 'p', quantity: 0, amount_cents: -1 }),
    ).toBe('invalid_quantity');
    expect(reasonOf({ amount_cents: null, currency: 'XBT' })).toBe('missing_amount');
    expect(reasonOf({ amount_cents: -1, currency: 'XBT' })).toBe('negative_amount');
  });

  it('names the offending value in the detail', () => {
    const result = validateEvent(sampleEvent({ currency: 'XBT' }), NOW);
    expect(result).toEqual({
      ok: false,
      reason: 'unknown_currency',
      detail: expect.stringContaining('"XBT"'),
    });
  });
});
