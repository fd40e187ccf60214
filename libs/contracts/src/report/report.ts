/** The reconciliation report: per layer, expected vs observed with condensed evidence and a verdict. */

import { z } from 'zod';

export const LAYERS = [
  'clickstream.raw',
  'events.valid',
  'events.dlq',
  'events.clean',
  'events.late',
  'agg.windows',
  'agg.sessions',
  'clickhouse.valid',
  'clickhouse.clean',
  'clickhouse.dlq',
  'clickhouse.agg_windows',
  'clickhouse.agg_sessions',
  'clickhouse.events_late',
  'iceberg.clean',
] as const;
export type LayerName = (typeof LAYERS)[number];

export const VERDICTS = ['exact', 'inexact', 'unknown'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Counts plus the first few examples: enough to act on, small enough to read. */
export const EvidenceSchema = z.object({
  count: z.number().int().nonnegative(),
  examples: z.array(z.unknown()).max(20),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

export const LayerReportSchema = z.object({
  layer: z.enum(LAYERS),
  verdict: z.enum(VERDICTS),
  /** Rows (or seqs) the ledger says the layer must hold. */
  expected: z.number().int().nonnegative(),
  observed: z.number().int().nonnegative(),
  missing: EvidenceSchema,
  duplicated: EvidenceSchema,
  /** Unknown seq, or poison that leaked into a valid layer. */
  unexpected: EvidenceSchema,
  /**
   * Rows or records present but not as promised: aggregate rows whose values differ (key, expected,
   * observed); dead letters with another reason; valid records and dead letters that break a
   * per-record promise against their raw record (seq, field, expected, observed). Null: not checked.
   */
  differing: EvidenceSchema.nullable(),
  /** Why the verdict is unknown, or anything worth reading (e.g. unmerged duplicates in ClickHouse). */
  notes: z.array(z.string()),
  read_ms: z.number().nonnegative(),
});
export type LayerReport = z.infer<typeof LayerReportSchema>;

export const ReconciliationReportSchema = z.object({
  run_id: z.string().min(1),
  generated_at: z.number().int(),
  ledger_rows: z.number().int().nonnegative(),
  lateness_ms: z.number().int().nonnegative(),
  verdict: z.enum(VERDICTS),
  layers: z.array(LayerReportSchema),
  duration_ms: z.number().nonnegative(),
});
export type ReconciliationReport = z.infer<typeof ReconciliationReportSchema>;
