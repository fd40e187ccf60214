/** The reconciler's pure core: (ledger, contents of each layer read) -> report. No I/O here. */

import type { LayerReport, ReconciliationReport, Verdict } from '@clickstream/contracts';
import { DEFAULT_LATENESS_MS } from '@clickstream/contracts';
import { checkLayer } from './check-layer';
import type { LayerRead } from './contents';
import { expectationOf, type LayerKind } from './expectation';
import { KIND_OF, type EventLayer } from './layers';
import type { LedgerIndex } from './ledger-index';

export interface ReconcileInput {
  ledger: LedgerIndex;
  /** What the run manifest says was sent (counts.sends); null when there is no manifest to cross-check. */
  manifestSends: number | null;
  /**
   * The manifest still says `running`: the generator stopped before the end of its run. The ledger
   * then holds the sends up to its last flushed batch, and the sends after it are an unflushed tail
   * that no layer can be checked against.
   */
  cutShort?: boolean;
  runId: string;
  latenessMs?: number;
  /** Only the layers that were read: a layer not read is not reported (and so never reported exact). */
  layers: { layer: EventLayer; read: LayerRead }[];
  examples?: number;
  now?: number;
}

/** Problems of the ledger itself (and of its agreement with the run and manifest): each makes every verdict unknown. */
export function ledgerProblemsOf(
  input: Pick<ReconcileInput, 'ledger' | 'manifestSends' | 'runId' | 'cutShort'>,
): string[] {
  const { ledger } = input;
  const problems = [...ledger.problems];
  if (input.cutShort === true) {
    problems.push(
      `the run was cut short (its manifest still says "running"): the ledger holds ${ledger.rows} send(s) up to its last flushed batch; sends after it are an unflushed tail, so no layer can be exact`,
    );
    return problems;
  }
  if (ledger.runId !== null && ledger.runId !== input.runId) {
    problems.push(
      `ledger run id ${ledger.runId} differs from the run being reconciled (${input.runId})`,
    );
  }
  if (ledger.rows === 0 && input.manifestSends === null) {
    problems.push('the ledger is empty and no manifest confirms that nothing was sent');
  }
  if (input.manifestSends !== null && input.manifestSends !== ledger.rows) {
    problems.push(
      `ledger has ${ledger.rows} row(s) but the manifest says ${input.manifestSends} send(s)`,
    );
  }
  return problems;
}

export function reconcile(input: ReconcileInput): ReconciliationReport {
  const started = Date.now();
  const { ledger } = input;
  const problems = ledgerProblemsOf(input);
  const needs = new Map<LayerKind, Uint8Array>();
  const layers: LayerReport[] = input.layers.map(({ layer, read }) => {
    const kind = KIND_OF[layer];
    let need = needs.get(kind);
    if (need === undefined) {
      need = expectationOf(kind, ledger);
      needs.set(kind, need);
    }
    return checkLayer({
      layer,
      kind,
      ledger,
      need,
      read,
      ledgerProblems: problems,
      examples: input.examples,
    });
  });
  return {
    run_id: input.runId,
    generated_at: input.now ?? Date.now(),
    ledger_rows: ledger.rows,
    lateness_ms: input.latenessMs ?? DEFAULT_LATENESS_MS,
    verdict: overallVerdict(layers),
    layers,
    duration_ms: Date.now() - started,
  };
}

/** Inexact if any layer is (a definite finding), else unknown if any is or none was read, else exact. */
export function overallVerdict(layers: LayerReport[]): Verdict {
  if (layers.length === 0) return 'unknown';
  if (layers.some((l) => l.verdict === 'inexact')) return 'inexact';
  if (layers.some((l) => l.verdict === 'unknown')) return 'unknown';
  return 'exact';
}
