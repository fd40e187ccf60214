/** Tiny hand-written ledgers for tests and the benchmark: one helper per kind of send. */

import {
  FAULT_KINDS,
  type LedgerRow,
  type RejectReason,
  type RunManifest,
} from '@clickstream/contracts';

export const RUN = 'run-test';

export function validSend(seq: number, over: Partial<LedgerRow> = {}): LedgerRow {
  return {
    run_id: RUN,
    seq,
    event_id: `e-${seq}`,
    event_type: 'page_view',
    session_id: `s-${seq % 7}`,
    key: `s-${seq % 7}`,
    event_time: 1_700_000_000_000 + seq,
    amount_cents: null,
    schema_version: 2,
    send_time: 1_700_000_000_000 + seq,
    fault: 'none',
    duplicate_of: null,
    expected_fate: 'valid',
    expected_reason: null,
    expected_timeliness: 'on_time',
    delivery: 'acked',
    partition: seq % 6,
    offset: seq,
    delivery_error: null,
    ...over,
  };
}

/** A later send of the same event as `of` (same event_id): an injected duplicate. */
export function duplicateSend(seq: number, of: number, over: Partial<LedgerRow> = {}): LedgerRow {
  return validSend(seq, { event_id: `e-${of}`, fault: 'duplicate', duplicate_of: of, ...over });
}

export function poisonSend(
  seq: number,
  reason: RejectReason = 'bad_magic',
  over: Partial<LedgerRow> = {},
): LedgerRow {
  return validSend(seq, {
    event_id: null,
    event_type: null,
    fault: 'poison_bad_magic',
    expected_fate: 'poison',
    expected_reason: reason,
    expected_timeliness: null,
    ...over,
  });
}

/** A manifest consistent with the rows (counts by delivery and fault), for tests that write a run directory. */
export function manifestFor(rows: LedgerRow[], over: Partial<RunManifest> = {}): RunManifest {
  const byFault = Object.fromEntries(
    FAULT_KINDS.map((f) => [f, rows.filter((r) => r.fault === f).length]),
  ) as RunManifest['counts']['by_fault'];
  const count = (d: LedgerRow['delivery']): number => rows.filter((r) => r.delivery === d).length;
  const zero = {
    duplicate: 0,
    out_of_order: 0,
    late: 0,
    poison_random_bytes: 0,
    poison_truncated: 0,
    poison_unknown_fingerprint: 0,
    poison_bad_magic: 0,
    poison_contract: 0,
  };
  return {
    run_id: rows[0]?.run_id ?? RUN,
    seed: 1,
    generator_version: 'test',
    dry_run: false,
    target_rate: 1,
    ramp_to_rate: null,
    duration_ms: null,
    total_events: rows.length,
    lateness_ms: 5000,
    fault_ratios: zero,
    topic: 'clickstream.raw',
    bootstrap: null,
    started_at: 0,
    ended_at: 1,
    achieved_rate: 1,
    counts: {
      sends: rows.length,
      acked: count('acked'),
      failed: count('failed'),
      not_sent: count('not_sent'),
      by_fault: byFault,
    },
    ledger_file: 'ledger.arrow',
    ...over,
  };
}
