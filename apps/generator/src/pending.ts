/** The queue of duplicates waiting to be re-sent, earliest due first (ties by the original's seq, so the order is deterministic). */

import type { PlannedRow } from './planned';

export interface PendingDuplicate {
  /** Virtual time (ms) at which the duplicate becomes due. */
  due: number;
  originalSeq: number;
  key: string | null;
  /** The exact bytes of the original send. */
  value: Buffer;
  /** The original's ledger fields (event fields, schema version). */
  original: PlannedRow;
}

function before(a: PendingDuplicate, b: PendingDuplicate): boolean {
  return a.due < b.due || (a.due === b.due && a.originalSeq < b.originalSeq);
}

/** A binary min-heap: a run holds up to (rate x max delay x duplicate ratio) pending duplicates. */
export class PendingDuplicates {
  private readonly heap: PendingDuplicate[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(item: PendingDuplicate): void {
    const h = this.heap;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  peek(): PendingDuplicate | undefined {
    return this.heap[0];
  }

  pop(): PendingDuplicate | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
