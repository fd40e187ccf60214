/** What an adapter read from one layer: this run's records reduced to seqs (plus reason / event_id where the layer has them). */

/** A seq that could not be read from a record (no header, not a number). */
export const NO_SEQ = -1;

export interface LayerContents {
  /** One entry per record of this run, in read order; NO_SEQ when the record had no usable seq. */
  seqs: ArrayLike<number>;
  /** Dead-letter layers: the reason of each record (same order as seqs). */
  reasons?: ArrayLike<string | null>;
  /** Layers that carry the event: its event_id (same order as seqs), cross-checked against the ledger. */
  eventIds?: ArrayLike<string | null>;
  /** Records of other runs (the probe, earlier runs in the same topic): ignored, reported as information. */
  foreign: number;
  /** Things worth reading that are not failures (e.g. unmerged duplicate rows, snapshot id). */
  notes: string[];
  readMs: number;
}

/** A reader's outcome: contents, or why the layer could not be read (which makes its verdict unknown). */
export type LayerRead = { ok: true; contents: LayerContents } | { ok: false; error: string; readMs: number };

/** Growable seq list for adapters: appending to a typed array avoids a boxed number per record. */
export class SeqList {
  private data = new Int32Array(1024);
  length = 0;

  push(seq: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = seq;
  }

  toArray(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/** Parses a decimal seq (header bytes or a column value); anything else is NO_SEQ. */
export function parseSeq(value: Buffer | string | number | bigint | null | undefined): number {
  if (value === null || value === undefined) return NO_SEQ;
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value < 0x7fffffff ? value : NO_SEQ;
  if (typeof value === 'bigint') return value >= 0n && value < 0x7fffffffn ? Number(value) : NO_SEQ;
  const len = value.length;
  if (len === 0 || len > 10) return NO_SEQ;
  let n = 0;
  for (let i = 0; i < len; i++) {
    const c = typeof value === 'string' ? value.charCodeAt(i) : (value[i] as number);
    if (c < 48 || c > 57) return NO_SEQ;
    n = n * 10 + (c - 48);
  }
  return n < 0x7fffffff ? n : NO_SEQ;
}
