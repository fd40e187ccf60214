/** The reconciler's pure core: (ledger, contents of each layer read) -> report. No I/O here. */

import type { LayerReport, ReconciliationReport, Verdict } from '@clickstream/contracts';
import { DEFAULT_LATENESS_MS } from '@clickstream/contracts';
import { checkLayer } from './check-layer';
import type { LayerRead } from './contents';
import { expectationOf, type LayerKind } from './expectation';
import { indexRaw, type RawIndex } from './fidelity';
import { KIND_OF, type EventLayer } from './layers';
import { DELIVERY, type LedgerIndex } from './ledger-index';

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

/**
 * A send whose outcome was unknown (failed indefinitely: a 5xx or a timeout through the collector,
 * an error report from the producer) is expected at most once in raw; once raw shows it, it was
 * written, and every layer after raw must then hold it exactly once. So, when raw was read in this
 * reconciliation, the failed sends it holds count as acknowledged for the downstream layers. (Two
 * copies in raw make raw itself inexact.)
 */
export function resolvedByRaw(ledger: LedgerIndex, layers: ReconcileInput['layers']): LedgerIndex {
  const raw = layers.find((l) => l.layer === 'clickstream.raw');
  if (raw === undefined || !raw.read.ok) return ledger;
  let delivery: Uint8Array | null = null;
  const seqs = raw.read.contents.seqs;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i] as number;
    if (seq < 0 || seq >= ledger.size || ledger.known[seq] !== 1) continue;
    if (ledger.delivery[seq] !== DELIVERY.failed) continue;
    delivery ??= ledger.delivery.slice();
    delivery[seq] = DELIVERY.acked;
  }
  return delivery === null ? ledger : { ...ledger, delivery };
}

/** The raw layer by seq when it was read with its records (the Kafka reader), else null. */
function rawIndexOf(ledger: LedgerIndex, layers: ReconcileInput['layers']): RawIndex | null {
  const raw = layers.find((l) => l.layer === 'clickstream.raw');
  if (raw === undefined || !raw.read.ok) return null;
  const records = raw.read.contents.records;
  if (records === undefined || records.kind !== 'raw') return null;
  return indexRaw(ledger.size, raw.read.contents.seqs, records);
}

export function reconcile(input: ReconcileInput): ReconciliationReport {
  const started = Date.now();
  const { ledger } = input;
  const problems = ledgerProblemsOf(input);
  const needs = new Map<LayerKind, Uint8Array>();
  const downstream = resolvedByRaw(ledger, input.layers);
  const raw = rawIndexOf(ledger, input.layers);
  const layers: LayerReport[] = input.layers.map(({ layer, read }) => {
    const kind = KIND_OF[layer];
    const known = kind === 'raw' ? ledger : downstream;
    let need = needs.get(kind);
    if (need === undefined) {
      need = expectationOf(kind, known);
      needs.set(kind, need);
    }
    return checkLayer({
      layer,
      kind,
      ledger: known,
      need,
      read,
      ledgerProblems: problems,
      raw,
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
