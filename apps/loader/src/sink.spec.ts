import { encodeEvent, type ClickEvent } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import type { TableRole } from '@clickstream/warehouse';
import { createMetrics } from './metrics';
import { createSink } from './sink';

const ev: ClickEvent = {
  event_id: '3b0c6a8e-1d2f-4a5b-8c7d-000000000001',
  seq: 1,
  run_id: 'r',
  event_type: 'page_view',
  event_time: 1_760_000_000_000,
  session_id: 's',
  user_id: null,
  page: '/',
  product_id: null,
  quantity: null,
  amount_cents: null,
  currency: null,
  device: null,
  ingest_time: 1_760_000_000_000,
};
const rec = (topic: string, value: Buffer): InRecord => ({
  topic,
  partition: 0,
  offset: 1,
  key: null,
  value,
  headers: {},
  timestamp: ev.event_time,
});
const roleOf = new Map<string, TableRole>([
  ['v', 'valid'],
  ['d', 'dlq'],
]);

describe('createSink', () => {
  it('inserts each non-empty table once and counts the rows', async () => {
    const calls: [string, number][] = [];
    const metrics = createMetrics();
    const sink = createSink({
      warehouse: { insertRows: async (t, rows) => void calls.push([t, rows.length]) },
      roleOf,
      metrics,
      now: () => ev.event_time + 700,
    });
    await sink([
      rec('v', encodeEvent(ev)),
      rec('v', encodeEvent({ ...ev, seq: 2 })),
      rec('d', Buffer.from('x')),
    ]);
    expect(calls).toEqual([
      ['events_valid', 2],
      ['events_dlq', 1],
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/loader_rows_inserted_total\{table="events_valid"\} 2/);
  });

  it('rejects (so that nothing is committed) when an insert fails, and counts the failure', async () => {
    const metrics = createMetrics();
    const sink = createSink({
      warehouse: { insertRows: () => Promise.reject(new Error('connection refused')) },
      roleOf,
      metrics,
      now: () => 0,
    });
    await expect(sink([rec('v', encodeEvent(ev))])).rejects.toThrow('connection refused');
    expect(await metrics.registry.getSingleMetricAsString('loader_flush_failures_total')).toMatch(
      /loader_flush_failures_total 1/,
    );
  });
});
