/** The ledger condensed into typed arrays indexed by seq, so that millions of sends are checked without a Map or an object per send. */

import { REJECT_REASONS, type LedgerRow, type RejectReason } from '@clickstream/contracts';

export const DELIVERY = { acked: 0, failed: 1, not_sent: 2 } as const;
export const FATE = { valid: 0, poison: 1 } as const;
/** Reason index of a row without an expected reason. */
export const NO_REASON = 255;

/** Per-seq facts of a run; every array has `size` slots and `known[seq]` says whether the seq is in the ledger. */
export interface LedgerIndex {
  runId: string | null;
  rows: number;
  /** One past the largest seq. */
  size: number;
  known: Uint8Array;
  delivery: Uint8Array;
  fate: Uint8Array;
  /** Index into REJECT_REASONS, or NO_REASON. */
  reason: Uint8Array;
  /** Seq of the first send of the same event (itself unless the row is an injected duplicate); -1 if unknown. */
  canonical: Int32Array;
  /** event_id per seq, for cross-checking layers that carry it. */
  eventIds: (string | null)[];
  /** Problems found in the ledger itself (two rows with one seq, several run ids, ...): each makes every verdict unknown. */
  problems: string[];
}

const REASON_INDEX = new Map<string, number>(REJECT_REASONS.map((r, i) => [r, i]));

export function reasonName(index: number): RejectReason | null {
  return index === NO_REASON ? null : (REJECT_REASONS[index] ?? null);
}

export function reasonIndex(reason: string | null): number {
  return reason === null ? NO_REASON : (REASON_INDEX.get(reason) ?? NO_REASON);
}

/** Builds a LedgerIndex incrementally (the ledger is read batch by batch); call `finish()` once. */
export class LedgerIndexBuilder {
  private capacity: number;
  private known: Uint8Array;
  private delivery: Uint8Array;
  private fate: Uint8Array;
  private reason: Uint8Array;
  private duplicateOf: Int32Array;
  private eventIds: (string | null)[] = [];
  private size = 0;
  private rows = 0;
  private runId: string | null = null;
  private readonly problems: string[] = [];
  private duplicateSeqs = 0;
  private otherRunIds = 0;
  private badSeqs = 0;

  constructor(sizeHint = 1024) {
    this.capacity = Math.max(16, sizeHint);
    this.known = new Uint8Array(this.capacity);
    this.delivery = new Uint8Array(this.capacity);
    this.fate = new Uint8Array(this.capacity);
    this.reason = new Uint8Array(this.capacity);
    this.duplicateOf = new Int32Array(this.capacity).fill(-1);
  }

  add(row: LedgerRow): void {
    this.addSend(
      row.run_id,
      row.seq,
      DELIVERY[row.delivery],
      FATE[row.expected_fate],
      reasonIndex(row.expected_reason),
      row.fault === 'duplicate' && row.duplicate_of !== null ? row.duplicate_of : -1,
      row.event_id,
    );
  }

  /** The facts of one send as primitives, so a columnar reader feeds the index without an object per row. */
  addSend(
    runId: string,
    seq: number,
    delivery: number,
    fate: number,
    reason: number,
    duplicateOf: number,
    eventId: string | null,
  ): void {
    this.rows++;
    if (this.runId === null) this.runId = runId;
    else if (runId !== this.runId) this.otherRunIds++;
    if (!Number.isInteger(seq) || seq < 0 || seq >= 0x7fffffff) {
      this.badSeqs++;
      return;
    }
    if (seq >= this.capacity) this.grow(seq + 1);
    if (this.known[seq] === 1) {
      this.duplicateSeqs++;
      return;
    }
    this.known[seq] = 1;
    this.delivery[seq] = delivery;
    this.fate[seq] = fate;
    this.reason[seq] = reason;
    this.duplicateOf[seq] = duplicateOf;
    this.eventIds[seq] = eventId;
    if (seq + 1 > this.size) this.size = seq + 1;
  }

  finish(): LedgerIndex {
    const size = this.size;
    if (this.badSeqs > 0)
      this.problems.push(
        `ledger has ${this.badSeqs} row(s) whose seq cannot be indexed (expected an integer in [0, 2^31-1))`,
      );
    if (this.duplicateSeqs > 0)
      this.problems.push(`ledger has ${this.duplicateSeqs} row(s) whose seq was already seen`);
    if (this.otherRunIds > 0)
      this.problems.push(`ledger has ${this.otherRunIds} row(s) of a run other than ${this.runId}`);
    const canonical = resolveCanonical(
      this.known.subarray(0, size),
      this.duplicateOf.subarray(0, size),
      this.problems,
    );
    const eventIds = this.eventIds;
    if (eventIds.length < size) eventIds.length = size;
    return {
      runId: this.runId,
      rows: this.rows,
      size,
      known: this.known.slice(0, size),
      delivery: this.delivery.slice(0, size),
      fate: this.fate.slice(0, size),
      reason: this.reason.slice(0, size),
      canonical,
      eventIds,
      problems: this.problems,
    };
  }

  private grow(min: number): void {
    let cap = this.capacity;
    while (cap < min) cap *= 2;
    const copy = <T extends Uint8Array | Int32Array>(a: T, fill = 0): T => {
      const b = new (a.constructor as new (n: number) => T)(cap);
      if (fill !== 0) b.fill(fill);
      b.set(a);
      return b;
    };
    this.known = copy(this.known);
    this.delivery = copy(this.delivery);
    this.fate = copy(this.fate);
    this.reason = copy(this.reason);
    this.duplicateOf = copy(this.duplicateOf, -1);
    this.capacity = cap;
  }
}

/** Follows duplicate_of chains to the first send of each event; a chain into an unknown seq or a cycle is a ledger problem. */
function resolveCanonical(
  known: Uint8Array,
  duplicateOf: Int32Array,
  problems: string[],
): Int32Array {
  const size = known.length;
  const canonical = new Int32Array(size).fill(-1);
  let broken = 0;
  for (let seq = 0; seq < size; seq++) {
    if (known[seq] !== 1) continue;
    let c = seq;
    let hops = 0;
    while ((duplicateOf[c] ?? -1) >= 0 && hops < 64) {
      const next = duplicateOf[c] as number;
      if (next >= size || known[next] !== 1) break;
      c = next;
      hops++;
    }
    if (hops >= 64 || ((duplicateOf[c] ?? -1) >= 0 && c === seq)) broken++;
    canonical[seq] = c;
  }
  if (broken > 0)
    problems.push(
      `ledger has ${broken} duplicate(s) whose duplicate_of chain does not end at a first send`,
    );
  return canonical;
}

/** Convenience for tests and small ledgers. */
export function indexLedger(rows: Iterable<LedgerRow>, sizeHint?: number): LedgerIndex {
  const b = new LedgerIndexBuilder(sizeHint);
  for (const r of rows) b.add(r);
  return b.finish();
}
