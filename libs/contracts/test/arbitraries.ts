/** fast-check arbitraries of events for the property specs: any value the schema accepts, and contract-valid ones. */

import fc from 'fast-check';
import {
  CURRENCIES,
  DEVICES,
  EVENT_TYPES,
  MAX_EVENT_TIME_SKEW_MS,
  type ClickEvent,
  type EventType,
} from '../src/event/types';
import { NOW } from './fixtures';

const nullable = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(arb, { nil: null });
const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
// Longs avsc 5.7.9 round-trips faithfully (|n| <= 2^52, see FAITHFUL_LONG_LIMIT).
const long = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger().map((n) => n % 2 ** 52),
);

/** Anything the v2 schema can encode, contract-valid or not. */
export const anyEvent: fc.Arbitrary<ClickEvent> = fc.record({
  event_id: fc.oneof(fc.uuid(), fc.string()),
  seq: long,
  run_id: fc.string(),
  event_type: fc.constantFrom(...EVENT_TYPES),
  event_time: long,
  session_id: fc.string(),
  user_id: nullable(fc.string()),
  page: nullable(fc.string()),
  product_id: nullable(fc.string()),
  quantity: nullable(int32),
  amount_cents: nullable(long),
  currency: nullable(fc.oneof(fc.constantFrom(...CURRENCIES), fc.string({ maxLength: 4 }))),
  device: nullable(fc.constantFrom(...DEVICES)),
  ingest_time: nullable(long),
});

const PRODUCT: ReadonlySet<EventType> = new Set([
  'product_view',
  'add_to_cart',
  'remove_from_cart',
]);
const CART: ReadonlySet<EventType> = new Set(['add_to_cart', 'remove_from_cart']);
const PAYMENT: ReadonlySet<EventType> = new Set(['payment_succeeded', 'payment_failed']);
const nonEmpty = fc.string({ minLength: 1, maxLength: 40 });

/** Events that pass validateEvent at ingest time NOW. */
export const validEvent: fc.Arbitrary<ClickEvent> = fc
  .record({
    event_id: fc.uuid(),
    seq: fc.maxSafeNat().map((n) => n % 2 ** 52),
    run_id: nonEmpty,
    event_type: fc.constantFrom(...EVENT_TYPES),
    event_time: fc.integer({
      min: NOW - MAX_EVENT_TIME_SKEW_MS,
      max: NOW + MAX_EVENT_TIME_SKEW_MS,
    }),
    session_id: nonEmpty,
    user_id: nullable(fc.string()),
    page: nullable(fc.string()),
    product_id: nonEmpty,
    quantity: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    amount_cents: fc.maxSafeNat().map((n) => n % 2 ** 52),
    currency: fc.constantFrom(...CURRENCIES),
    device: nullable(fc.constantFrom(...DEVICES)),
    ingest_time: nullable(fc.maxSafeNat().map((n) => n % 2 ** 52)),
    keepOptional: fc.boolean(),
  })
  .map(({ keepOptional, ...e }) => ({
    ...e,
    product_id: PRODUCT.has(e.event_type) || keepOptional ? e.product_id : null,
    quantity: CART.has(e.event_type) || keepOptional ? e.quantity : null,
    amount_cents: PAYMENT.has(e.event_type) || keepOptional ? e.amount_cents : null,
    currency: PAYMENT.has(e.event_type) || keepOptional ? e.currency : null,
  }));
