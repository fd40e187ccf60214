/** Which fault each send gets, and the time offsets and duplicate delays that make a fault what it claims to be. */

import { MAX_EVENT_TIME_SKEW_MS, type FaultKind, type FaultRatios } from '@clickstream/contracts';
import type { Prng } from './prng';

/**
 * Faults drawn for a fresh send; 'duplicate' is scheduled separately (it re-sends an earlier event).
 * 'session_merge' starts three sends (merges.ts) whose ledger faults are none, none, out_of_order.
 */
export type FreshFault = Exclude<FaultKind, 'duplicate'> | 'session_merge';

export const POISON_FAULTS = [
  'poison_random_bytes',
  'poison_truncated',
  'poison_unknown_fingerprint',
  'poison_bad_magic',
  'poison_contract',
  'poison_malformed',
] as const satisfies readonly FaultKind[];
export type PoisonFault = (typeof POISON_FAULTS)[number];

export function isPoison(fault: FaultKind | FreshFault): fault is PoisonFault {
  return (POISON_FAULTS as readonly string[]).includes(fault);
}

const FRESH_FAULTS = [
  'out_of_order',
  'late',
  ...POISON_FAULTS,
  'lateness_edge',
  'session_merge',
] as const;

/**
 * Ratios are shares of all sends. A duplicate takes a send slot, so the fresh faults are drawn with
 * weight r / (1 - r_duplicate), and each valid fresh send schedules a duplicate with the probability
 * that makes duplicates r_duplicate of all sends.
 */
export class FaultPlan {
  private readonly weights: readonly (readonly [FreshFault, number])[];
  readonly duplicateProbability: number;

  constructor(readonly ratios: FaultRatios) {
    const total = Object.values(ratios).reduce((a: number, b) => a + (b ?? 0), 0);
    if (total > 1 + 1e-9) throw new RangeError(`fault ratios sum to ${total}; expected at most 1`);
    const dup = ratios.duplicate;
    if (dup >= 1) throw new RangeError(`duplicate ratio ${dup}; expected less than 1`);
    const fresh = FRESH_FAULTS.map((f) => [f, (ratios[f] ?? 0) / (1 - dup)] as const);
    const faulty = fresh.reduce((a, [, w]) => a + w, 0);
    this.weights = [['none', Math.max(0, 1 - faulty)], ...fresh];
    const validShare = 1 - POISON_FAULTS.reduce((a, f) => a + (ratios[f] ?? 0) / (1 - dup), 0);
    this.duplicateProbability = dup === 0 ? 0 : dup / (1 - dup) / validShare;
    if (!(this.duplicateProbability <= 1)) {
      throw new RangeError(
        `duplicate ratio ${dup} is unreachable: only ${(validShare * (1 - dup)).toFixed(3)} of sends are valid events to duplicate`,
      );
    }
  }

  fresh(prng: Prng): FreshFault {
    return prng.weighted(this.weights);
  }
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
/** Half-width of the band around L that 'lateness_edge' events fall in. */
export const EDGE_MS = 50;

/**
 * How far behind the send time the event time is, ms. 'none' has a small client delay within L;
 * 'out_of_order' goes back anywhere within L (boundary included: still on time); 'late' is minutes
 * beyond L (strictly late); 'lateness_edge' within EDGE_MS of L, either side. Always draws the same number of values, whatever the fault, so that
 * the sequence of the run does not depend on it.
 */
export function timeOffsetMs(fault: FreshFault, prng: Prng, latenessMs: number): number {
  const u = prng.float();
  switch (fault) {
    case 'out_of_order':
      return latenessMs === 0 ? 0 : 1 + Math.floor(u * latenessMs);
    case 'late':
      return latenessMs + MINUTE + Math.floor(u * 9 * MINUTE);
    case 'lateness_edge':
      // Within 50 ms of L on either side: the rule's edge, where a few ms of broker time decide.
      return Math.max(0, latenessMs - EDGE_MS + Math.floor(u * (2 * EDGE_MS + 1)));
    default:
      return Math.floor(u * Math.min(latenessMs, 250));
  }
}

/** An absurd event time: 1 to 23 days beyond MAX_EVENT_TIME_SKEW_MS away from the send time, in the past or the future. */
export function absurdOffsetMs(prng: Prng): number {
  const offset = MAX_EVENT_TIME_SKEW_MS + DAY + Math.floor(prng.float() * 22 * DAY);
  return prng.chance(0.5) ? offset : -offset;
}

/** Half the duplicates come seconds after the original, half minutes after; none later than maxDelayMs. */
export function duplicateDelayMs(prng: Prng, maxDelayMs: number): number {
  const minutes = prng.chance(0.5);
  const u = prng.float();
  if (maxDelayMs <= MINUTE || !minutes) {
    const hi = Math.min(maxDelayMs, 30 * SECOND);
    const lo = Math.min(500, hi);
    return lo + Math.floor(u * (hi - lo + 1));
  }
  return MINUTE + Math.floor(u * (maxDelayMs - MINUTE + 1));
}
