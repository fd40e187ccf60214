/** ClickHouse layer adapter: reads a table as a dashboard would (FINAL) and reports not-yet-merged duplicate rows as information. */

import { SeqList, toIndexSeq, type LayerContents, type LayerRead } from '../core/contents';
import type { LayerKind } from '../core/expectation';

/** The one call this adapter needs from @clickstream/warehouse (`{name:Type}` placeholders bound by the warehouse). */
export interface SqlSource {
  query<T>(sql: string, params?: Record<string, string | number>): Promise<T[]>;
}

export interface ClickHouseLayerOptions {
  /** Table name (unqualified: the warehouse's database). */
  table: string;
  kind: LayerKind;
  runId: string;
  /** Columns that identify a row in the table's ORDER BY: raw rows per key beyond one are unmerged duplicates. */
  key: string[];
  examples?: number;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function ident(name: string, what: string): string {
  if (!IDENT.test(name)) throw new RangeError(`${what} ${JSON.stringify(name)} is not a plain identifier`);
  return name;
}

interface Row {
  seq: number;
  reason?: string;
  event_id?: string;
}

export async function readClickHouseLayer(sql: SqlSource, o: ClickHouseLayerOptions): Promise<LayerRead> {
  const started = Date.now();
  try {
    const table = ident(o.table, 'table');
    const key = o.key.map((k) => ident(k, 'key column')).join(', ');
    const extra = o.kind === 'dlq' ? ', reason' : o.kind === 'clean' ? ', event_id' : '';
    const run = { run: o.runId };
    const rows = await sql.query<Row>(`SELECT toInt64(seq) AS seq${extra} FROM ${table} FINAL WHERE run_id = {run:String}`, run);
    const [totals] = await sql.query<{ raw: number; other_runs: number }>(
      `SELECT countIf(run_id = {run:String}) AS raw, countIf(run_id != {run:String}) AS other_runs FROM ${table}`,
      run,
    );
    const raw = Number(totals?.raw ?? 0);
    const notes = [`table ${table}: ${rows.length} row(s) with FINAL, ${raw} raw row(s) of this run`];
    if (raw > rows.length) {
      // Rows that FINAL collapses are duplicates that ReplacingMergeTree has not merged yet: what a
      // dashboard reading FINAL sees is what counts, so they are information, not a failure.
      const unmerged = await sql.query<{ seqs: number[]; n: number }>(
        `SELECT groupArray(toInt64(seq)) AS seqs, count() AS n FROM ${table} WHERE run_id = {run:String} GROUP BY ${key} HAVING n > 1 LIMIT ${o.examples ?? 5}`,
        run,
      );
      notes.push(`${raw - rows.length} raw row(s) not yet merged (collapsed by FINAL), e.g. seqs ${JSON.stringify(unmerged.map((u) => u.seqs))}`);
    }
    return { ok: true, contents: toContents(rows, o.kind, Number(totals?.other_runs ?? 0), notes, Date.now() - started) };
  } catch (err) {
    return { ok: false, error: `table ${o.table}: ${err instanceof Error ? err.message : String(err)}`, readMs: Date.now() - started };
  }
}

function toContents(rows: Row[], kind: LayerKind, foreign: number, notes: string[], readMs: number): LayerContents {
  const seqs = new SeqList();
  for (const r of rows) seqs.push(toIndexSeq(r.seq));
  const contents: LayerContents = { seqs: seqs.toArray(), foreign, notes, readMs };
  if (kind === 'dlq') contents.reasons = rows.map((r) => r.reason ?? null);
  if (kind === 'clean') contents.eventIds = rows.map((r) => r.event_id ?? null);
  return contents;
}

/** The table and key of each ClickHouse layer (infra/clickhouse/ddl: the ORDER BY of each table). */
export const CLICKHOUSE_TABLES = {
  'clickhouse.valid': { table: 'events_valid', kind: 'valid', key: ['run_id', 'seq', 'kafka_partition', 'kafka_offset'] },
  'clickhouse.dlq': { table: 'events_dlq', kind: 'dlq', key: ['run_id', 'seq', 'kafka_partition', 'kafka_offset'] },
  'clickhouse.clean': { table: 'events_clean', kind: 'clean', key: ['run_id', 'event_id'] },
} as const satisfies Record<string, { table: string; kind: LayerKind; key: string[] }>;
