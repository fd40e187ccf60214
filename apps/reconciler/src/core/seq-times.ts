/**
 * A time per seq (each event's ingest_time) in a typed array indexed by seq: a run's millions of
 * seqs in a Map cost a hash entry each and a long-lived table for the collector to walk.
 */

export class SeqTimes implements Iterable<[number, number]> {
  /** NaN where a seq has no time. */
  private readonly dense: Float64Array;
  /** Seqs beyond the array (never a run's, but a record may carry any number). */
  private readonly sparse = new Map<number, number>();
  size = 0;

  /** Seqs below `denseSize` are held in the array; size it from the seqs to come (see denseSizeFor). */
  constructor(denseSize = 0) {
    this.dense = new Float64Array(denseSize).fill(Number.NaN);
  }

  has(seq: number): boolean {
    return this.get(seq) !== undefined;
  }

  get(seq: number): number | undefined {
    if (Number.isInteger(seq) && seq >= 0 && seq < this.dense.length) {
      const t = this.dense[seq] as number;
      return Number.isNaN(t) ? undefined : t;
    }
    return this.sparse.get(seq);
  }

  /** Keeps the first time given for a seq (returns false when it had one); a NaN time is not kept. */
  setFirst(seq: number, time: number): boolean {
    if (Number.isNaN(time) || this.has(seq)) return false;
    if (Number.isInteger(seq) && seq >= 0 && seq < this.dense.length) this.dense[seq] = time;
    else this.sparse.set(seq, time);
    this.size++;
    return true;
  }

  /** Dense seqs ascending, then the others in the order they were set. */
  *[Symbol.iterator](): IterableIterator<[number, number]> {
    for (let seq = 0; seq < this.dense.length; seq++) {
      const t = this.dense[seq] as number;
      if (!Number.isNaN(t)) yield [seq, t];
    }
    yield* this.sparse;
  }
}

/**
 * The array size for these seqs: one past the largest, unless that is far more than there are
 * seqs (a stray huge seq must not cost gigabytes: then the largest ones go to the Map).
 */
export function denseSizeFor(seqs: ArrayLike<number>): number {
  let max = -1;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i] as number;
    if (Number.isInteger(seq) && seq > max) max = seq;
  }
  return Math.min(max + 1, 4 * seqs.length + 1024);
}
