/** The run manifest: how a generator run was configured and what it achieved, written beside its ledger. */

import { z } from 'zod';
import type { FaultKind } from './ledger';

const ratio = z.number().min(0).max(1);

export const FaultRatiosSchema = z.object({
  duplicate: ratio,
  out_of_order: ratio,
  late: ratio,
  poison_random_bytes: ratio,
  poison_truncated: ratio,
  poison_unknown_fingerprint: ratio,
  poison_bad_magic: ratio,
  poison_contract: ratio,
  /** Issue #12; absent in manifests written before it (read as 0). */
  lateness_edge: ratio.optional(),
  /**
   * Issue #12: share of sends that start a session merge (three sends of one fresh session id;
   * the bridging one is recorded as out_of_order). Absent in older manifests (read as 0).
   */
  session_merge: ratio.optional(),
  /** Issue #11: share of poison_malformed sends. Absent in older manifests (read as 0). */
  poison_malformed: ratio.optional(),
});

const count = z.number().int().nonnegative();

/** Sends per fault kind, every kind named; a kind added later is optional, so older manifests still read. */
export const ByFaultSchema = z.object({
  none: count,
  duplicate: count,
  out_of_order: count,
  late: count,
  poison_random_bytes: count,
  poison_truncated: count,
  poison_unknown_fingerprint: count,
  poison_bad_magic: count,
  poison_contract: count,
  lateness_edge: count,
  /** Issue #11; absent in manifests written before it. */
  poison_malformed: count.optional(),
}) satisfies z.ZodType<Partial<Record<FaultKind, number>>>;
export type FaultRatios = z.infer<typeof FaultRatiosSchema>;

export const RunManifestSchema = z.object({
  run_id: z.string().min(1),
  /**
   * `running` from the start of a run until its end, when the generator rewrites the manifest
   * `complete` with its counts. A manifest still `running` after the generator is gone marks a run
   * cut short: its ledger holds the sends up to its last flushed batch. Absent in older manifests
   * (they were written only at the end, so they are complete).
   */
  status: z.enum(['running', 'complete']).optional(),
  seed: z.number().int(),
  generator_version: z.string(),
  dry_run: z.boolean(),
  target_rate: z.number().positive(),
  /** Optional ramp: the rate goes linearly from target_rate to ramp_to_rate over the run. */
  ramp_to_rate: z.number().positive().nullable(),
  duration_ms: z.number().int().nonnegative().nullable(),
  total_events: z.number().int().nonnegative().nullable(),
  lateness_ms: z.number().int().nonnegative(),
  /** The clean job's dedup TTL the run was planned against (no duplicate is sent later). Absent in older manifests. */
  dedup_ttl_ms: z.number().int().positive().optional(),
  fault_ratios: FaultRatiosSchema,
  topic: z.string(),
  bootstrap: z.string().nullable(),
  started_at: z.number().int(),
  ended_at: z.number().int(),
  achieved_rate: z.number().nonnegative(),
  counts: z.object({
    sends: z.number().int().nonnegative(),
    acked: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    not_sent: z.number().int().nonnegative(),
    by_fault: ByFaultSchema,
  }),
  ledger_file: z.string(),
});
export type RunManifest = z.infer<typeof RunManifestSchema>;

// Compile-time check: every fault kind is a key of by_fault (a new kind must be added there).
const everyFaultKind: Record<FaultKind, unknown> = ByFaultSchema.shape;
void everyFaultKind;
