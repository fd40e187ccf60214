/** Compares one layer's contents with the ledger's expectation for its kind: the per-layer checker, a pure function. */

import type { LayerName, LayerReport } from '@clickstream/contracts';
import type { LayerContents, LayerRead } from './contents';
import { NO_SEQ } from './contents';
import { DEFAULT_EXAMPLES, EvidenceCollector } from './evidence';
import { NEED, UNEXPECTED_WHY, type LayerKind } from './expectation';
import { checkFidelity, type RawIndex } from './fidelity';
import { reasonName, type LedgerIndex } from './ledger-index';

export interface LayerCheckInput {
  layer: LayerName;
  kind: LayerKind;
  ledger: LedgerIndex;
  /** expectationOf(kind, ledger), shared by the layers of one kind. */
  need: Uint8Array;
  read: LayerRead;
  /** Problems of the ledger itself: the verdict cannot be better than unknown. */
  ledgerProblems: string[];
  /** The raw layer by seq, when it was read: what a valid record or a dead letter is checked against (core/fidelity.ts). */
  raw?: RawIndex | null;
  examples?: number;
}

export function checkLayer(input: LayerCheckInput): LayerReport {
  const { layer, kind, ledger, need, read, ledgerProblems } = input;
  const limit = input.examples ?? DEFAULT_EXAMPLES;
  const expected = countExpected(kind, ledger, need);
  if (!read.ok) {
    return {
      layer,
      verdict: 'unknown',
      expected,
      observed: 0,
      missing: { count: 0, examples: [] },
      duplicated: { count: 0, examples: [] },
      unexpected: { count: 0, examples: [] },
      differing: null,
      notes: [`layer could not be read: ${read.error}`, ...ledgerProblems],
      read_ms: read.readMs,
    };
  }
  const c = read.contents;
  const counts = new Uint8Array(ledger.size);
  const unexpected = new EvidenceCollector(limit);
  const fidelity = c.records !== undefined && c.records.kind !== 'raw' ? c.records : null;
  const differing = kind === 'dlq' || fidelity !== null ? new EvidenceCollector(limit) : null;
  if (c.unexpected !== undefined) unexpected.addEvidence(c.unexpected);
  countRecords(kind, ledger, need, c, counts, unexpected, differing);
  const fidelityNotes: string[] = [];
  if (fidelity !== null && differing !== null) {
    if (input.raw === undefined || input.raw === null) {
      fidelityNotes.push(
        `${fidelity.kind === 'valid' ? 'partition and ingest_time' : 'value bytes and source'} not checked: clickstream.raw was not read`,
      );
    } else {
      const tally = checkFidelity(input.raw, c.seqs, fidelity, differing);
      if (tally.unmatched > 0)
        fidelityNotes.push(
          `${tally.unmatched} record(s) not checked against raw: their seq is in no raw record, or in several`,
        );
    }
  }
  const { missing, duplicated, indefinitePresent, indefiniteAbsent } = sweep(
    kind,
    ledger,
    need,
    counts,
    limit,
  );

  const notes = [...ledgerProblems];
  if (c.foreign > 0) notes.push(`${c.foreign} record(s) of other runs ignored`);
  if (indefinitePresent + indefiniteAbsent > 0) {
    notes.push(
      `${indefinitePresent + indefiniteAbsent} event(s) whose send failed indefinitely (may be present at most once): ${indefinitePresent} present, ${indefiniteAbsent} absent`,
    );
  }
  notes.push(...fidelityNotes, ...c.notes);

  const observed = c.seqs.length;
  const anomalies = missing.count + duplicated.count + unexpected.count + (differing?.count ?? 0);
  let verdict: LayerReport['verdict'] = anomalies > 0 ? 'inexact' : 'exact';
  if (ledgerProblems.length > 0) verdict = 'unknown';
  if (observed === 0 && expected > 0) {
    // An empty layer is more likely a reader or wiring fault than a proof of loss: never a pass, not a verdict either.
    verdict = 'unknown';
    notes.unshift(`layer holds no record of this run although ${expected} are expected`);
  }
  return {
    layer,
    verdict,
    expected,
    observed,
    missing: missing.toEvidence(),
    duplicated: duplicated.toEvidence(),
    unexpected: unexpected.toEvidence(),
    differing: differing?.toEvidence() ?? null,
    notes,
    read_ms: c.readMs,
  };
}

/** Keys that must be present exactly once: for 'clean' the canonical seqs, else the seqs. */
function countExpected(kind: LayerKind, ledger: LedgerIndex, need: Uint8Array): number {
  let n = 0;
  for (let seq = 0; seq < ledger.size; seq++) {
    if (need[seq] === NEED.once && (kind !== 'clean' || ledger.canonical[seq] === seq)) n++;
  }
  return n;
}

function countRecords(
  kind: LayerKind,
  ledger: LedgerIndex,
  need: Uint8Array,
  c: LayerContents,
  counts: Uint8Array,
  unexpected: EvidenceCollector,
  differing: EvidenceCollector | null,
): void {
  const { seqs, reasons, eventIds, eventIdCheck: idCheck } = c;
  const size = ledger.size;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i] as number;
    if (seq === NO_SEQ) {
      unexpected.add({ seq: null, why: 'record without a seq' });
      continue;
    }
    if (seq >= size || ledger.known[seq] !== 1) {
      unexpected.add({ seq, why: UNEXPECTED_WHY[NEED.unknown] });
      continue;
    }
    const key =
      kind === 'clean' && ledger.fate[seq] === 0 ? (ledger.canonical[seq] as number) : seq;
    const n = need[key] as number;
    if (n !== NEED.once && n !== NEED.atMostOnce) {
      unexpected.add({ seq, why: UNEXPECTED_WHY[n] });
      continue;
    }
    if (eventIds !== undefined || idCheck !== undefined) {
      const id =
        idCheck === undefined ? (eventIds?.[i] ?? null) : (idCheck.observed.get(i) ?? null);
      const want = ledger.eventIds[seq] ?? null;
      if (idCheck === undefined ? id !== want : idCheck.differs[i] === 1) {
        unexpected.add({
          seq,
          why: 'event_id differs from the ledger',
          expected: want,
          observed: id,
        });
        continue;
      }
    }
    if (counts[key] !== 255) counts[key] = (counts[key] as number) + 1;
    if (differing !== null && reasons !== undefined) {
      const want = reasonName(ledger.reason[seq] as number);
      const got = reasons[i] ?? null;
      if (want !== got) differing.add({ seq, expected: want, observed: got });
    }
  }
}

function sweep(
  kind: LayerKind,
  ledger: LedgerIndex,
  need: Uint8Array,
  counts: Uint8Array,
  limit: number,
) {
  const missing = new EvidenceCollector(limit);
  const duplicated = new EvidenceCollector(limit);
  let indefinitePresent = 0;
  let indefiniteAbsent = 0;
  for (let key = 0; key < ledger.size; key++) {
    const n = need[key];
    if (n !== NEED.once && n !== NEED.atMostOnce) continue;
    if (kind === 'clean' && ledger.canonical[key] !== key) continue;
    const k = counts[key] as number;
    if (n === NEED.once && k === 0) missing.add({ seq: key });
    if (k > 1) duplicated.add({ seq: key, copies: k === 255 ? '255+' : k });
    if (n === NEED.atMostOnce) {
      if (k === 0) indefiniteAbsent++;
      else indefinitePresent++;
    }
  }
  return { missing, duplicated, indefinitePresent, indefiniteAbsent };
}
