/**
 * The benchmark's data: a day of storefront history generated inside ClickHouse (INSERT ... SELECT
 * from numbers(), so millions of rows load without shipping them over HTTP), and live rows written
 * like the loader writes them. Both go into the source tables only: the DDL's materialized views
 * fill the dashboard's time-ordered copies on the same inserts, as in production.
 */

import { REJECT_REASONS } from '@clickstream/contracts';
import type { Warehouse } from '@clickstream/warehouse';

/** Events per session in the generated history; one every ~5 s, as the generator's shoppers send. */
const EVENTS_PER_SESSION = 20;

/**
 * Loads `rows` clean events of run `runId` with event times in [startMs, endMs), in chunks (one
 * INSERT ... SELECT each, numbered from `first`). Sessions of 20 events, 5 s apart; funnel depth,
 * products (skewed to low ids) and amounts from hashes, so every run of the bench loads the same shape.
 */
export async function loadHistory(
  wh: Pick<Warehouse, 'command'>,
  table: string,
  o: { runId: string; rows: number; startMs: number; endMs: number; chunk: number },
  onChunk: (loaded: number) => void,
): Promise<void> {
  const spanMs = Math.max(1, o.endMs - o.startMs - EVENTS_PER_SESSION * 5_000);
  for (let first = 0; first < o.rows; first += o.chunk) {
    const n = Math.min(o.chunk, o.rows - first);
    await wh.command(
      `INSERT INTO ${table} (run_id, seq, event_id, event_type, event_time, ingest_time, session_id, product_id,
         amount_cents, currency, kafka_topic, kafka_partition, kafka_offset, kafka_timestamp, inserted_at)
       SELECT {run:String}, number,
         concat(lower(hex(sipHash64(number))), lower(hex(sipHash64(number, 1)))) AS eid,
         multiIf(pos = 0, 'page_view', pos = 5 AND depth < 15, 'add_to_cart', pos = 10 AND depth < 6, 'checkout_started',
                 pos = 11 AND depth < 4, 'payment_succeeded', pos % 2 = 1 AND depth < 40, 'product_view',
                 pos = 7 AND depth < 10, 'remove_from_cart', 'page_view') AS et,
         toInt64({start:Int64} + sipHash64(s) % {span:UInt64} + pos * 5000 + sipHash64(number, 2) % 1000) AS t,
         t + 200, concat('s-', toString(s)),
         if(et IN ('product_view', 'add_to_cart', 'remove_from_cart'),
            concat('p-', toString(intDiv((sipHash64(number, 3) % 1000) * (sipHash64(number, 3) % 1000), 1000))), NULL),
         if(et = 'payment_succeeded', toInt64(1000 + sipHash64(number, 4) % 20000), NULL),
         if(et = 'payment_succeeded', 'EUR', NULL),
         'events.clean', toUInt32(number % 6), number, t + 300, t + 1000
       FROM (SELECT number, intDiv(number, ${EVENTS_PER_SESSION}) AS s, number % ${EVENTS_PER_SESSION} AS pos,
                    sipHash64(intDiv(number, ${EVENTS_PER_SESSION}), 5) % 100 AS depth
             FROM system.numbers LIMIT {first:UInt64}, {n:UInt64})`,
      { run: o.runId, start: o.startMs, span: spanMs, first, n },
    );
    onChunk(first + n);
  }
}

/** Dead letters spread over the history (kafka_timestamp), one reason each, cycling the closed list. */
export async function loadDeadLetters(
  wh: Pick<Warehouse, 'command'>,
  o: { runId: string; rows: number; startMs: number; endMs: number },
): Promise<void> {
  await wh.command(
    `INSERT INTO events_dlq (run_id, seq, reason, detail, source_topic, source_partition, source_offset,
       value_base64, value_bytes, value_is_null, kafka_topic, kafka_partition, kafka_offset, kafka_timestamp, inserted_at)
     SELECT {run:String}, toInt64(number), {reasons:Array(String)}[1 + number % {nreasons:UInt32}], '', 'clickstream.raw',
       toInt32(number % 6), toInt64(number), '', 0, 0, 'events.dlq', toUInt32(number % 6), number,
       toInt64({start:Int64} + sipHash64(number) % {span:UInt64}) AS t, t + 500
     FROM system.numbers LIMIT {n:UInt64}`,
    {
      run: o.runId,
      reasons: [...REJECT_REASONS],
      nreasons: REJECT_REASONS.length,
      start: o.startMs,
      span: Math.max(1, o.endMs - o.startMs),
      n: o.rows,
    },
  );
}

const TYPES = [
  'page_view',
  'product_view',
  'product_view',
  'page_view',
  'add_to_cart',
  'checkout_started',
  'payment_succeeded',
] as const;

/** `n` live clean-event rows at about `nowMs`, in the loader's row shape (ids unique per call via `batch`). */
export function liveRows(runId: string, batch: number, n: number, nowMs: number): object[] {
  const rows: object[] = [];
  for (let i = 0; i < n; i++) {
    const seq = batch * 100_000 + i;
    const type = TYPES[seq % TYPES.length] as string;
    const t = nowMs - (seq % 997);
    rows.push({
      run_id: runId,
      seq,
      event_id: `live-${batch}-${i}`,
      event_type: type,
      event_time: t,
      ingest_time: t + 50,
      session_id: `live-s-${Math.floor(seq / 7) % 5000}`,
      product_id: type === 'product_view' || type === 'add_to_cart' ? `p-${seq % 300}` : null,
      amount_cents: type === 'payment_succeeded' ? 1000 + (seq % 5000) : null,
      currency: type === 'payment_succeeded' ? 'EUR' : null,
      kafka_topic: 'events.clean',
      kafka_partition: seq % 6,
      kafka_offset: seq,
      kafka_timestamp: t + 100,
      inserted_at: nowMs,
    });
  }
  return rows;
}
