/** What the ledger says each kind of layer must hold, per seq, as one byte per seq. */

import { DELIVERY, FATE, type LedgerIndex } from './ledger-index';

/**
 * The content kinds of the event layers (DESIGN.md, "Exactness, per layer"):
 * raw = every send; valid = the valid sends; dlq = the poison sends, each with its reason;
 * clean = every distinct valid event once, keyed by the event (its first send), not by the copy.
 */
export const LAYER_KINDS = ['raw', 'valid', 'dlq', 'clean'] as const;
export type LayerKind = (typeof LAYER_KINDS)[number];

/** What a layer must hold for one key. Values are small so they fit a Uint8Array. */
export const NEED = {
  /** The seq is not in the ledger. */
  unknown: 0,
  /** Exactly once (an acknowledged send). */
  once: 1,
  /** At most once: the send failed indefinitely, it may or may not have been written. */
  atMostOnce: 2,
  /** Absent: the ledger says it was never sent. */
  absentNeverSent: 3,
  /** Absent: poison must not reach a valid layer. */
  absentPoison: 4,
  /** Absent: a valid event must not reach the dead-letter layer. */
  absentValid: 5,
  /** Absent: an on-time event must not reach the late layer (core/timed-expectation.ts). */
  absentOnTime: 6,
} as const;

/** Why a record whose key must be absent is unexpected (indexed by NEED value). */
export const UNEXPECTED_WHY: readonly string[] = [
  'unknown seq (not in the ledger)',
  '',
  '',
  'seq never sent according to the ledger',
  'poison leaked into a valid layer',
  'valid event in the dead-letter layer',
  'on-time event in the late layer',
];

/**
 * `need[key]` for one layer kind; for 'clean' the key is the canonical seq (the first send of the
 * event), and only canonical seqs and poison seqs carry a meaningful value.
 */
export function expectationOf(kind: LayerKind, ledger: LedgerIndex): Uint8Array {
  const { size, known, delivery, fate, canonical } = ledger;
  const need = new Uint8Array(size);
  for (let seq = 0; seq < size; seq++) {
    if (known[seq] !== 1) continue;
    const d = delivery[seq];
    const poison = fate[seq] === FATE.poison;
    const sent =
      d === DELIVERY.acked
        ? NEED.once
        : d === DELIVERY.failed
          ? NEED.atMostOnce
          : NEED.absentNeverSent;
    switch (kind) {
      case 'raw':
        need[seq] = sent;
        break;
      case 'valid':
        need[seq] = poison ? NEED.absentPoison : sent;
        break;
      case 'dlq':
        need[seq] = poison ? sent : NEED.absentValid;
        break;
      case 'clean': {
        if (poison) {
          need[seq] = NEED.absentPoison;
          break;
        }
        // The event is expected once if any copy was acknowledged, at most once if only failed copies exist.
        const c = canonical[seq] as number;
        const prev = need[c] as number;
        need[c] = strongest(prev, sent);
        break;
      }
    }
  }
  return need;
}

/** once beats atMostOnce beats never-sent (0 = not yet set). */
function strongest(a: number, b: number): number {
  const rank = (n: number): number =>
    n === NEED.once ? 3 : n === NEED.atMostOnce ? 2 : n === NEED.absentNeverSent ? 1 : 0;
  return rank(a) >= rank(b) ? a : b;
}
