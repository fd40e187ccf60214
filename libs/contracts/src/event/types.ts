/** The storefront event as TypeScript sees it, and the constants of its contract. */

export const EVENT_TYPES = [
  'page_view',
  'product_view',
  'add_to_cart',
  'remove_from_cart',
  'checkout_started',
  'payment_succeeded',
  'payment_failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const DEVICES = ['desktop', 'mobile', 'tablet', 'unknown'] as const;
export type Device = (typeof DEVICES)[number];

export const CURRENCIES = ['EUR', 'GBP', 'USD', 'SEK', 'DKK'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Schema versions released so far; the last one is canonical (what the gatekeeper writes). */
export const SCHEMA_VERSIONS = [1, 2] as const;
export type SchemaVersion = (typeof SCHEMA_VERSIONS)[number];
export const CANONICAL_VERSION: SchemaVersion = 2;

/** Largest value the front door accepts. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** An event_time further than this from the ingest time is absurd (a broken clock), not late. */
export const MAX_EVENT_TIME_SKEW_MS = 7 * 24 * 3600 * 1000;
/** Lateness bound L of DESIGN.md: on time iff event_time >= ingest_time - L. */
export const DEFAULT_LATENESS_MS = 5000;

/** The event in its canonical (v2) shape. All times are epoch milliseconds. */
export interface ClickEvent {
  event_id: string;
  seq: number;
  run_id: string;
  event_type: EventType;
  event_time: number;
  session_id: string;
  user_id: string | null;
  page: string | null;
  product_id: string | null;
  quantity: number | null;
  amount_cents: number | null;
  currency: string | null;
  /** v2 */
  device: Device | null;
  /** v2: Kafka timestamp of the raw record, stamped by the gatekeeper. */
  ingest_time: number | null;
}
