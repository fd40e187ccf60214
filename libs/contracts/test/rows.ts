/** Valid ledger rows, manifests and reports for the zod specs. */

import { FAULT_KINDS, type LedgerRow } from '../src/ledger/ledger';
import type { RunManifest } from '../src/ledger/manifest';
import type { LayerReport, ReconciliationReport } from '../src/report/report';

export function ledgerRow(overrides: Partial<LedgerRow> = {}): LedgerRow {
  return {
    run_id: 'run-1',
    seq: 7,
    event_id: '3b241101-e2bb-4255-8caf-4136c566a962',
    event_type: 'add_to_cart',
    session_id: 'sess-1',
    key: 'sess-1',
    event_time: 1_790_000_000_000,
    amount_cents: null,
    schema_version: 2,
    send_time: 1_790_000_000_100,
    fault: 'none',
    duplicate_of: null,
    expected_fate: 'valid',
    expected_reason: null,
    expected_timeliness: 'on_time',
    delivery: 'acked',
    partition: 3,
    offset: 1234,
    delivery_error: null,
    ...overrides,
  };
}

export function manifest(overrides: Partial<RunManifest> = {}): RunManifest {
  const zero = Object.fromEntries(
    FAULT_KINDS.map((k) => [k, 0]),
  ) as RunManifest['counts']['by_fault'];
  return {
    run_id: 'run-1',
    seed: 42,
    generator_version: '0.1.0',
    dry_run: false,
    target_rate: 1000,
    ramp_to_rate: null,
    duration_ms: 60_000,
    total_events: null,
    lateness_ms: 5000,
    fault_ratios: {
      duplicate: 0.01,
      out_of_order: 0.05,
      late: 0.01,
      poison_random_bytes: 0.001,
      poison_truncated: 0.001,
      poison_unknown_fingerprint: 0.001,
      poison_bad_magic: 0.001,
      poison_contract: 0.002,
    },
    topic: 'clickstream.raw',
    bootstrap: '127.0.0.1:19092',
    started_at: 1_790_000_000_000,
    ended_at: 1_790_000_060_000,
    achieved_rate: 998.5,
    counts: {
      sends: 60_000,
      acked: 60_000,
      failed: 0,
      not_sent: 0,
      by_fault: { ...zero, none: 59_000, duplicate: 1000 },
    },
    ledger_file: 'results/runs/run-1/ledger.jsonl',
    ...overrides,
  };
}

export function layerReport(overrides: Partial<LayerReport> = {}): LayerReport {
  return {
    layer: 'events.clean',
    verdict: 'exact',
    expected: 59_000,
    observed: 59_000,
    missing: { count: 0, examples: [] },
    duplicated: { count: 0, examples: [] },
    unexpected: { count: 0, examples: [] },
    differing: null,
    notes: [],
    read_ms: 812,
    ...overrides,
  };
}

export function report(overrides: Partial<ReconciliationReport> = {}): ReconciliationReport {
  return {
    run_id: 'run-1',
    generated_at: 1_790_000_100_000,
    ledger_rows: 60_000,
    lateness_ms: 5000,
    verdict: 'exact',
    layers: [
      layerReport(),
      layerReport({ layer: 'agg.windows', differing: { count: 0, examples: [] } }),
    ],
    duration_ms: 4200,
    ...overrides,
  };
}
