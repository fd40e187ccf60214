/** The closed list of reasons a raw record is rejected: shared by the gatekeeper, the DLQ headers, the reconciler and the docs. */

export const REJECT_REASONS = [
  'empty', // zero-length value
  'oversized', // value larger than MAX_EVENT_BYTES
  'bad_magic', // not Avro single-object encoding (first two bytes are not C3 01)
  'unknown_fingerprint', // single-object encoding, but the writer schema is not a released version
  'truncated', // the bytes end before the record does
  'trailing_bytes', // bytes remain after a complete record
  'malformed_body', // the body is not a valid encoding of the writer schema (bad union index, bad length, ...)
  'missing_product', // a product event (product_view, add/remove_from_cart) without product_id
  'invalid_quantity', // a cart event without a positive quantity
  'negative_amount', // amount_cents < 0
  'missing_amount', // a payment event without amount_cents or currency
  'unknown_currency', // currency not in CURRENCIES
  'absurd_event_time', // event_time more than MAX_EVENT_TIME_SKEW_MS away from the ingest time
  'invalid_field', // any other contract violation (empty ids, bad uuid, ...)
] as const;

export type RejectReason = (typeof REJECT_REASONS)[number];

export function isRejectReason(value: unknown): value is RejectReason {
  return typeof value === 'string' && (REJECT_REASONS as readonly string[]).includes(value);
}
