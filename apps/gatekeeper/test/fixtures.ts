/** Hand-made raw records for the specs: valid events of every type, and one poison per RejectReason with the reason it must get. */

import {
  HEADERS,
  MAX_EVENT_BYTES,
  MAX_EVENT_TIME_SKEW_MS,
  encodeEvent,
  fingerprintOf,
  type ClickEvent,
  type EventType,
  type RejectReason,
} from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import { samplePageView } from '@clickstream/test-support';

export const NOW = 1_790_000_000_000;

/** A contract-valid event of the given type, at `now`. */
export function sampleEvent(
  type: EventType,
  seq: number,
  runId: string,
  now: number,
  overrides: Partial<ClickEvent> = {},
): ClickEvent {
  const base: ClickEvent = {
    ...samplePageView(seq, runId, {
      event_time: now - 1000,
      session_id: `sess-${seq % 17}`,
      user_id: seq % 3 === 0 ? null : `user-${seq % 11}`,
      page: '/home',
    }),
    event_type: type,
  };
  if (type === 'product_view' || type === 'add_to_cart' || type === 'remove_from_cart')
    base.product_id = `sku-${seq % 50}`;
  if (type === 'add_to_cart' || type === 'remove_from_cart') base.quantity = 1 + (seq % 3);
  if (type === 'payment_succeeded' || type === 'payment_failed')
    Object.assign(base, { amount_cents: 1999 + seq, currency: 'EUR' });
  return { ...base, ...overrides };
}

const SINGLE_OBJECT_HEADER_V2 = (): Buffer =>
  Buffer.concat([Buffer.from([0xc3, 0x01]), fingerprintOf(2)]);

/** One poison per reason: how to make its bytes from a fresh event (seq, run, ingest time). */
export const POISON: Record<RejectReason, (seq: number, runId: string, now: number) => Buffer> = {
  empty: () => Buffer.alloc(0),
  oversized: () => Buffer.alloc(MAX_EVENT_BYTES + 1, 0xc3),
  bad_magic: (seq) => Buffer.from(JSON.stringify({ seq, note: 'json, not avro' })),
  unknown_fingerprint: (seq, runId, now) => {
    const good = encodeEvent(sampleEvent('page_view', seq, runId, now));
    return Buffer.concat([Buffer.from([0xc3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8]), good.subarray(10)]);
  },
  truncated: (seq, runId, now) => {
    const good = encodeEvent(sampleEvent('page_view', seq, runId, now));
    return good.subarray(0, good.length - 3);
  },
  trailing_bytes: (seq, runId, now) =>
    Buffer.concat([encodeEvent(sampleEvent('page_view', seq, runId, now)), Buffer.from([0])]),
  // event_id "A", seq 1, run_id "A", then enum index 63 (zigzag 0x7e) for event_type.
  malformed_body: () =>
    Buffer.concat([SINGLE_OBJECT_HEADER_V2(), Buffer.from([0x02, 0x41, 0x02, 0x02, 0x41, 0x7e])]),
  missing_product: (seq, runId, now) =>
    encodeEvent(sampleEvent('product_view', seq, runId, now, { product_id: null })),
  invalid_quantity: (seq, runId, now) =>
    encodeEvent(sampleEvent('add_to_cart', seq, runId, now, { quantity: 0 })),
  negative_amount: (seq, runId, now) =>
    encodeEvent(sampleEvent('payment_succeeded', seq, runId, now, { amount_cents: -5 })),
  missing_amount: (seq, runId, now) =>
    encodeEvent(sampleEvent('payment_failed', seq, runId, now, { amount_cents: null })),
  unknown_currency: (seq, runId, now) =>
    encodeEvent(sampleEvent('payment_succeeded', seq, runId, now, { currency: 'XBT' })),
  absurd_event_time: (seq, runId, now) =>
    encodeEvent(
      sampleEvent('page_view', seq, runId, now, {
        event_time: now - MAX_EVENT_TIME_SKEW_MS - 60_000,
      }),
    ),
  invalid_field: (seq, runId, now) =>
    encodeEvent(sampleEvent('page_view', seq, runId, now, { event_id: 'NOT-A-UUID' })),
};

export function seqHeaders(seq: number, runId: string): Record<string, Buffer> {
  return { [HEADERS.seq]: Buffer.from(String(seq)), [HEADERS.runId]: Buffer.from(runId) };
}

/** A consumed raw record as kafka-tx would hand it over. */
export function rawRecord(value: Buffer | null, overrides: Partial<InRecord> = {}): InRecord {
  return {
    topic: 'clickstream.raw',
    partition: 3,
    offset: 1234,
    key: Buffer.from('sess-1'),
    value,
    headers: seqHeaders(7, 'run-1'),
    timestamp: NOW,
    ...overrides,
  };
}
