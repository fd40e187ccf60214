/** ClickHouse layer adapter: a table read as a dashboard would (FINAL, by @clickstream/warehouse), with not-yet-merged duplicate rows reported as information. */

import {
  readRunRows,
  TABLES,
  type EventTableRole,
  type RunRows,
  type Warehouse,
} from '@clickstream/warehouse';
import { SeqList, toIndexSeq, type LayerContents, type LayerRead } from '../core/contents';
import type { LayerKind } from '../core/expectation';

/** The one call of the warehouse handle this adapter needs. */
export type SqlSource = Pick<Warehouse, 'query'>;

export interface ClickHouseLayerOptions {
  /** The event table of the layer (its name, key and columns are the warehouse's). */
  role: EventTableRole;
  kind: LayerKind;
  runId: string;
  examples?: number;
}

export async function readClickHouseLayer(
  sql: SqlSource,
  o: ClickHouseLayerOptions,
): Promise<LayerRead> {
  const started = Date.now();
  try {
    const read = await readRunRows(sql, o.role, o.runId, o.examples ?? 5);
    return { ok: true, contents: toContents(read, o.kind, Date.now() - started) };
  } catch (err) {
    return {
      ok: false,
      error: `table ${TABLES[o.role]}: ${err instanceof Error ? err.message : String(err)}`,
      readMs: Date.now() - started,
    };
  }
}

function toContents(read: RunRows, kind: LayerKind, readMs: number): LayerContents {
  const { table, rows, raw } = read;
  const notes = [`table ${table}: ${rows.length} row(s) with FINAL, ${raw} raw row(s) of this run`];
  if (raw > rows.length) {
    // Rows that FINAL collapses are duplicates that ReplacingMergeTree has not merged yet: what a
    // dashboard reading FINAL sees is what counts, so they are information, not a failure.
    notes.push(
      `${raw - rows.length} raw row(s) not yet merged (collapsed by FINAL), e.g. seqs ${JSON.stringify(read.unmerged)}`,
    );
  }
  const seqs = new SeqList();
  for (const r of rows) seqs.push(toIndexSeq(r.seq));
  const contents: LayerContents = { seqs: seqs.toArray(), foreign: read.otherRuns, notes, readMs };
  if (kind === 'dlq') contents.reasons = rows.map((r) => r.reason ?? null);
  if (kind === 'clean') contents.eventIds = rows.map((r) => r.event_id ?? null);
  return contents;
}

/** The event table and content kind of each ClickHouse layer. */
export const CLICKHOUSE_TABLES = {
  'clickhouse.valid': { role: 'valid', kind: 'valid' },
  'clickhouse.dlq': { role: 'dlq', kind: 'dlq' },
  'clickhouse.clean': { role: 'clean', kind: 'clean' },
} as const satisfies Record<string, { role: EventTableRole; kind: LayerKind }>;
