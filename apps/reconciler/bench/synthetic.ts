/** Synthetic runs of N sends for the benchmark: a ledger with the usual fault mix and the layer contents an exact pipeline would hold. */

import { HEADERS, REJECT_REASONS, type LedgerRow } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import type { LayerContents } from '../src/core/contents';
import { duplicateSend, poisonSend, validSend } from '../test/ledger-rows';

export const BENCH_RUN = 'run-test';

/** About 3 % duplicates, 1 % poison, 0.1 % failed sends: the generator's default mix, roughly. */
export function* syntheticLedger(n: number): Generator<LedgerRow> {
  for (let seq = 0; seq < n; seq++) {
    const m = seq % 1000;
    if (m < 30 && seq >= 1000) yield duplicateSend(seq, seq - 950);
    else if (m >= 30 && m < 40) yield poisonSend(seq, REJECT_REASONS[m % REJECT_REASONS.length]);
    else if (m === 40) yield validSend(seq, { delivery: 'failed' });
    else yield validSend(seq);
  }
}

/** What each kind of layer holds for an exact run (failed sends present, as if written). */
export function exactContents(
  rows: Iterable<LedgerRow>,
): Record<'raw' | 'valid' | 'dlq' | 'clean', LayerContents> {
  const raw: number[] = [];
  const valid: number[] = [];
  const dlq: number[] = [];
  const reasons: (string | null)[] = [];
  const clean: number[] = [];
  const cleanIds: (string | null)[] = [];
  for (const r of rows) {
    raw.push(r.seq);
    if (r.expected_fate === 'poison') {
      dlq.push(r.seq);
      reasons.push(r.expected_reason);
      continue;
    }
    valid.push(r.seq);
    if (r.fault !== 'duplicate') {
      clean.push(r.seq);
      cleanIds.push(r.event_id);
    }
  }
  const c = (seqs: number[], extra: Partial<LayerContents> = {}): LayerContents => ({
    seqs: Int32Array.from(seqs),
    foreign: 0,
    notes: [],
    readMs: 0,
    ...extra,
  });
  return {
    raw: c(raw),
    valid: c(valid),
    dlq: c(dlq, { reasons }),
    clean: c(clean, { eventIds: cleanIds }),
  };
}

/** Kafka records as kafka-tx returns them, headers only (the adapter never looks at values). */
export function syntheticRecords(seqs: ArrayLike<number>, runId: string): InRecord[] {
  const run = Buffer.from(runId);
  const out: InRecord[] = new Array<InRecord>(seqs.length);
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i] as number;
    out[i] = {
      topic: 'bench',
      partition: seq % 6,
      offset: i,
      key: null,
      value: null,
      headers: { [HEADERS.seq]: Buffer.from(String(seq)), [HEADERS.runId]: run },
      timestamp: 0,
    };
  }
  return out;
}
