/** Reads a table as the reconciler needs it: the multiset of seqs of a run, exact (FINAL) or as stored (raw, before merges). */
import { assertIdentifier } from './ddl';
import type { Warehouse } from './types';

export type ReadMode = 'final' | 'raw';

/**
 * seq -> number of rows for one run. With 'final', a count above 1 is a real duplicate (the key
 * kept two rows, e.g. an event written twice upstream); with 'raw' it also counts the loader's
 * not-yet-merged redeliveries. GROUP BY on the server keeps the answer small at millions of rows.
 */
export async function seqCounts(
  wh: Pick<Warehouse, 'query'>,
  table: string,
  runId: string,
  mode: ReadMode,
): Promise<Map<number, number>> {
  assertIdentifier('table', table);
  const rows = await wh.query<{ seq: number; n: number }>(
    `SELECT seq, count() AS n FROM ${table}${mode === 'final' ? ' FINAL' : ''} WHERE run_id = {run:String} GROUP BY seq`,
    { run: runId },
  );
  return new Map(rows.map((r) => [Number(r.seq), Number(r.n)]));
}
