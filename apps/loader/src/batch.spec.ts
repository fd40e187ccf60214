import {
  encodeEvent,
  encodeSessionAggregate,
  encodeWindowAggregate,
  HEADERS,
  type ClickEvent,
} from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import { samplePageView } from '@clickstream/test-support';
import type { TableRole } from '@clickstream/warehouse';
import { toTableBatch } from './batch';

const NOW = 1_760_000_000_000;
const roles = new Map<string, TableRole>([
  ['v', 'valid'],
  ['c', 'clean'],
  ['d', 'dlq'],
  ['l', 'late'],
  ['w', 'windows'],
  ['s', 'sessions'],
]);

function event(seq: number): ClickEvent {
  return samplePageView(seq, 'run-1', {
    event_id: `3b0c6a8e-1d2f-4a5b-8c7d-${String(seq).padStart(12, '0')}`,
    event_time: NOW - 1000,
    session_id: 'sess-1',
    ingest_time: NOW - 500,
  });
}

function record(
  topic: string,
  offset: number,
  value: Buffer | null,
  headers: Record<string, Buffer> = {},
): InRecord {
  return { topic, partition: 2, offset, key: null, value, headers, timestamp: NOW - 500 };
}

describe('toTableBatch', () => {
  it('routes each record to its table with its Kafka position and inserted_at', () => {
    const batch = toTableBatch(
      [
        record('v', 10, encodeEvent(event(1))),
        record('c', 11, encodeEvent(event(2))),
        record('d', 12, Buffer.from('junk'), {
          [HEADERS.seq]: Buffer.from('3'),
          [HEADERS.reason]: Buffer.from('bad_magic'),
        }),
      ],
      roles,
      NOW,
    );
    expect(batch.valid.map((r) => [r.seq, r.kafka_offset, r.inserted_at])).toEqual([[1, 10, NOW]]);
    expect(batch.clean.map((r) => [r.seq, r.kafka_offset])).toEqual([[2, 11]]);
    expect(batch.dlq.map((r) => [r.seq, r.reason, r.kafka_offset])).toEqual([[3, 'bad_magic', 12]]);
    expect(batch.rejects).toEqual([]);
  });

  it("takes a row's seq from the cs-seq header (a generator duplicate repeats the payload seq)", () => {
    const batch = toTableBatch(
      [record('v', 20, encodeEvent(event(1)), { [HEADERS.seq]: Buffer.from('42') })],
      roles,
      NOW,
    );
    expect(batch.valid.map((r) => [r.seq, r.event_id])).toEqual([[42, event(1).event_id]]);
  });

  it('keeps an undecodable valid record as a reject instead of dropping it', () => {
    const batch = toTableBatch(
      [record('v', 5, Buffer.from([0x00, 0x01]), { [HEADERS.seq]: Buffer.from('8') })],
      roles,
      NOW,
    );
    expect(batch.valid).toEqual([]);
    expect(batch.rejects).toHaveLength(1);
    expect(batch.rejects[0]).toMatchObject({ seq: 8, reason: 'bad_magic', kafka_offset: 5 });
  });

  it('returns empty tables for an empty batch', () => {
    expect(toTableBatch([], roles, NOW)).toEqual({
      valid: [],
      clean: [],
      dlq: [],
      late: [],
      windows: [],
      sessions: [],
      rejects: [],
    });
  });

  it('treats a record from an unknown topic as a bug', () => {
    expect(() => toTableBatch([record('x', 1, null)], roles, NOW)).toThrow(/unsubscribed topic x/);
  });

  it('maps events.late like clean, and aggregate emissions to their tables; a bad aggregate is a reject', () => {
    const w = encodeWindowAggregate({
      run_id: 'run-1',
      window_start: NOW - 10_000,
      window_end: NOW,
      event_type: 'page_view',
      event_count: 4,
      amount_cents_sum: 0,
      distinct_sessions: 2,
      version: 2,
      is_final: true,
      emitted_at: NOW,
    });
    const s = encodeSessionAggregate({
      run_id: 'run-1',
      session_id: 'sess-1',
      session_start: NOW - 9000,
      session_end: NOW - 1000,
      event_count: 3,
      revenue_cents: 1200,
      converted: true,
      version: 1,
      is_final: false,
      retracted: false,
      emitted_at: NOW,
    });
    const batch = toTableBatch(
      [
        record('l', 1, encodeEvent(event(4))),
        record('w', 2, w),
        record('s', 3, s),
        record('w', 4, s),
      ],
      roles,
      NOW,
    );
    expect(batch.late).toHaveLength(1);
    expect(batch.late[0]).toMatchObject({ seq: 4, kafka_topic: 'l' });
    expect(batch.windows).toEqual([
      expect.objectContaining({ event_count: 4, version: 2, is_final: 1, kafka_offset: 2 }),
    ]);
    expect(batch.sessions).toEqual([
      expect.objectContaining({ revenue_cents: 1200, converted: 1, retracted: 0, kafka_offset: 3 }),
    ]);
    expect(batch.rejects).toEqual([
      expect.objectContaining({ reason: 'bad_aggregate', kafka_topic: 'w', kafka_offset: 4 }),
    ]);
  });
});
