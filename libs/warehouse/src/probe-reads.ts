/** Reads that answer the freshness probe: which of its events a table can already show. */
import { assertIdentifier } from './ddl';
import type { Warehouse } from './types';

/**
 * The seqs of one run at or above `fromSeq` that a table holds right now: how the freshness probe
 * asks "is my event queryable yet?". No FINAL: any copy makes the event queryable. The table's key
 * starts with run_id, so the probe's run is a narrow range however large the table grows.
 */
export async function seqsFrom(
  wh: Pick<Warehouse, 'query'>,
  table: string,
  runId: string,
  fromSeq: number,
): Promise<number[]> {
  assertIdentifier('table', table);
  const rows = await wh.query<{ seq: number }>(
    `SELECT DISTINCT seq FROM ${table} WHERE run_id = {run:String} AND seq >= {from:UInt64}`,
    { run: runId, from: fromSeq },
  );
  return rows.map((r) => Number(r.seq));
}

/**
 * Events counted per 10 s window of one run from `fromWindowStart` on, summed over event types:
 * how the freshness probe sees the windows layer (its events count under its own run id). No
 * FINAL: a window's rows only grow (every emission carries the count so far, redelivered or
 * superseded rows hold smaller or equal counts), so the largest count per key is the newest.
 */
export async function windowCountsFrom(
  wh: Pick<Warehouse, 'query'>,
  table: string,
  runId: string,
  fromWindowStart: number,
): Promise<Map<number, number>> {
  assertIdentifier('table', table);
  const rows = await wh.query<{ window_start: number; events: number }>(
    `SELECT window_start, sum(n) AS events
       FROM (SELECT window_start, event_type, max(event_count) AS n FROM ${table}
             WHERE run_id = {run:String} AND window_start >= {from:Int64}
             GROUP BY window_start, event_type)
      GROUP BY window_start`,
    { run: runId, from: fromWindowStart },
  );
  return new Map(rows.map((r) => [Number(r.window_start), Number(r.events)]));
}
