/**
 * The windows layer: the windows job counts the probe's events in 10 s tumbling windows under the
 * probe's run id, so a window's row shows how many of them it has counted, not which. Events of one
 * window are ranked by send order (seq); a row that counts n events shows the first n. A probe event
 * that the job routed to the late stream (ingest more than L after its event time) is never counted,
 * so a later event of its window is taken for it: the age gauge stays right, one event is judged
 * late. Pure: the run loop feeds it sends and the counts it read.
 */

/** The windows job's tumbling size (WindowAggregator.WINDOW_MS). */
export const WINDOW_MS = 10_000;

export function windowStartOf(eventTime: number): number {
  return Math.floor(eventTime / WINDOW_MS) * WINDOW_MS;
}

export class WindowRanks {
  private readonly bySeq = new Map<number, { windowStart: number; rank: number }>();
  private readonly sentPerWindow = new Map<number, number>();

  /** The probe sent event `seq` with event time `sentAt`. */
  add(seq: number, sentAt: number): void {
    const windowStart = windowStartOf(sentAt);
    const rank = (this.sentPerWindow.get(windowStart) ?? 0) + 1;
    this.sentPerWindow.set(windowStart, rank);
    this.bySeq.set(seq, { windowStart, rank });
  }

  /** The window of a remembered event. */
  windowOf(seq: number): number | undefined {
    return this.bySeq.get(seq)?.windowStart;
  }

  /** The remembered events that these counts (window start -> events counted) show. */
  covered(counts: ReadonlyMap<number, number>): number[] {
    const seqs: number[] = [];
    for (const [seq, { windowStart, rank }] of this.bySeq)
      if ((counts.get(windowStart) ?? 0) >= rank) seqs.push(seq);
    return seqs;
  }

  /** Forgets events below `seq` (no longer watched) and the send counts of windows before its window. */
  forgetBelow(seq: number): void {
    for (const s of this.bySeq.keys()) if (s < seq) this.bySeq.delete(s);
    // Everything below seq is gone: keep the counts from its window on, or (all seen) the newest window's.
    const keepFrom = this.windowOf(seq) ?? Math.max(...this.sentPerWindow.keys());
    for (const w of this.sentPerWindow.keys()) if (w < keepFrom) this.sentPerWindow.delete(w);
  }
}
