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
