/** The contract checks an event must pass beyond its Avro schema, in a fixed, documented order. */

import { CURRENCIES, MAX_EVENT_TIME_SKEW_MS, type ClickEvent, type EventType } from './types';
import type { RejectReason } from '../reasons';

export type ValidationResult = { ok: true } | { ok: false; reason: RejectReason; detail: string };

const PRODUCT_EVENTS: ReadonlySet<EventType> = new Set([
  'product_view',
  'add_to_cart',
  'remove_from_cart',
]);
const CART_EVENTS: ReadonlySet<EventType> = new Set(['add_to_cart', 'remove_from_cart']);
const PAYMENT_EVENTS: ReadonlySet<EventType> = new Set(['payment_succeeded', 'payment_failed']);
const CURRENCY_SET: ReadonlySet<string> = new Set(CURRENCIES);
/** Canonical (lowercase) textual UUID: dedup compares event_id as a string, so one spelling only. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * avsc 5.7.9 zigzag-encodes longs with float arithmetic: a long below -2^52 is written, and read,
 * as a positive number. A decoded magnitude of 2^52 or more may be such a flipped sign, so the
 * contract refuses it (no real seq, amount or timestamp comes near it).
 */
export const FAITHFUL_LONG_LIMIT = 2 ** 52;

function isFaithfulLong(n: number | null): boolean {
  return n === null || (Number.isSafeInteger(n) && Math.abs(n) < FAITHFUL_LONG_LIMIT);
}

function reject(reason: RejectReason, detail: string): ValidationResult {
  return { ok: false, reason, detail };
}

/**
 * Checks, first failure wins: identity fields and long ranges (invalid_field), event time (absurd_event_time),
 * product (missing_product), quantity (invalid_quantity), payment amount and currency present
 * (missing_amount), amount sign (negative_amount), currency known (unknown_currency).
 * A poison event that breaks one rule therefore always gets that rule's reason.
 */
export function validateEvent(event: ClickEvent, ingestTime: number): ValidationResult {
  if (event.event_id === '') return reject('invalid_field', 'event_id is empty');
  if (!UUID.test(event.event_id))
    return reject(
      'invalid_field',
      `event_id ${JSON.stringify(event.event_id.slice(0, 64))} is not a lowercase uuid`,
    );
  if (event.run_id === '') return reject('invalid_field', 'run_id is empty');
  if (event.session_id === '') return reject('invalid_field', 'session_id is empty');
  if (!isFaithfulLong(event.seq) || event.seq < 0)
    return reject('invalid_field', `seq ${event.seq} is not a non-negative integer below 2^52`);
  if (!isFaithfulLong(event.amount_cents))
    return reject(
      'invalid_field',
      `amount_cents ${String(event.amount_cents)} is not an integer of magnitude below 2^52`,
    );
  if (!isFaithfulLong(event.ingest_time))
    return reject(
      'invalid_field',
      `ingest_time ${String(event.ingest_time)} is not an integer of magnitude below 2^52`,
    );

  const skew = event.event_time - ingestTime;
  if (!Number.isFinite(skew) || Math.abs(skew) > MAX_EVENT_TIME_SKEW_MS) {
    return reject(
      'absurd_event_time',
      `event_time ${event.event_time} is ${skew} ms from ingest time ${ingestTime} (max ${MAX_EVENT_TIME_SKEW_MS})`,
    );
  }

  const type = event.event_type;
  if (PRODUCT_EVENTS.has(type) && (event.product_id === null || event.product_id === '')) {
    return reject('missing_product', `${type} without product_id`);
  }
  if (CART_EVENTS.has(type) && (event.quantity === null || event.quantity <= 0)) {
    return reject(
      'invalid_quantity',
      `${type} with quantity ${String(event.quantity)}; must be positive`,
    );
  }
  if (PAYMENT_EVENTS.has(type) && (event.amount_cents === null || event.currency === null)) {
    return reject(
      'missing_amount',
      `${type} with amount_cents ${String(event.amount_cents)} and currency ${String(event.currency)}; both are required`,
    );
  }
  if (event.amount_cents !== null && event.amount_cents < 0) {
    return reject('negative_amount', `amount_cents ${event.amount_cents} is negative`);
  }
  if (event.currency !== null && !CURRENCY_SET.has(event.currency)) {
    return reject(
      'unknown_currency',
      `currency ${JSON.stringify(event.currency.slice(0, 16))} is not one of ${CURRENCIES.join(', ')}`,
    );
  }
  return { ok: true };
}
