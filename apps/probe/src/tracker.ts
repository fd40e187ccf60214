/**
 * What the probe knows about its own events: when each was sent, when each layer first showed it,
 * and from that the SLO verdict per event and the age of the newest event seen. Pure: every method
 * takes the time, so tests drive it with a fake clock.
 */

import type { LayerName } from './layers';

/** Called synchronously as facts become known (the metrics module implements it); must not throw. */
export interface TrackerHooks {
  /** A layer showed an event for the first time, `freshnessMs` after its send. */
  onSeen(layer: LayerName, freshnessMs: number): void;
  /** An event's SLO verdict for a layer: good when seen within the threshold. Exactly once per event and layer. */
  onJudged(layer: LayerName, good: boolean): void;
  /** A layer never showed an event within forgetAfterMs; the probe stops looking for it. */
  onForgotten(layer: LayerName): void;
}

export interface TrackerOptions {
  layers: readonly LayerName[];
  sloThresholdMs: number;
  forgetAfterMs: number;
  /** The probe's start: the age of the newest event seen counts from here until one is seen. */
  startedAt: number;
  hooks: TrackerHooks;
}

interface Watch {
  sentAt: number;
  /** Layers that have not shown the event yet (and have not given up on it). */
  unseen: Set<LayerName>;
  /** Layers whose SLO verdict is still open. */
  unjudged: Set<LayerName>;
}

export class ProbeTracker {
  private readonly watches = new Map<number, Watch>();
  private readonly newestSeenSentAt = new Map<LayerName, number>();

  constructor(private readonly o: TrackerOptions) {}

  get layers(): readonly LayerName[] {
    return this.o.layers;
  }

  /** An event was handed to the producer at `sentAt` (its event_time). */
  sent(seq: number, sentAt: number): void {
    if (this.watches.has(seq)) throw new Error(`probe seq ${seq} sent twice`);
    this.watches.set(seq, {
      sentAt,
      unseen: new Set(this.o.layers),
      unjudged: new Set(this.o.layers),
    });
  }

  /** `layer` answered, at time `at`, that it holds these seqs (repeats and unknown seqs are ignored). */
  seen(layer: LayerName, seqs: Iterable<number>, at: number): void {
    for (const seq of seqs) {
      const w = this.watches.get(seq);
      if (w === undefined || !w.unseen.delete(layer)) continue;
      const freshnessMs = Math.max(0, at - w.sentAt);
      this.o.hooks.onSeen(layer, freshnessMs);
      if (w.sentAt > (this.newestSeenSentAt.get(layer) ?? -Infinity))
        this.newestSeenSentAt.set(layer, w.sentAt);
      if (w.unjudged.delete(layer))
        this.o.hooks.onJudged(layer, freshnessMs <= this.o.sloThresholdMs);
      this.dropIfDone(seq, w);
    }
  }

  /** Judges every event whose deadline has passed unseen as bad, and forgets the hopeless ones. */
  tick(now: number): void {
    for (const [seq, w] of this.watches) {
      if (now - w.sentAt > this.o.sloThresholdMs) {
        for (const layer of w.unjudged) this.o.hooks.onJudged(layer, false);
        w.unjudged.clear();
      }
      if (now - w.sentAt > this.o.forgetAfterMs) {
        for (const layer of w.unseen) this.o.hooks.onForgotten(layer);
        w.unseen.clear();
      }
      this.dropIfDone(seq, w);
    }
  }

  /** ms since the send of the newest event `layer` has shown; since the start while it has shown none. Keeps rising during a stall. */
  newestSeenAgeMs(layer: LayerName, now: number): number {
    return Math.max(0, now - (this.newestSeenSentAt.get(layer) ?? this.o.startedAt));
  }

  /** The smallest seq `layer` has not shown yet, or null when it has shown everything sent. */
  watchFrom(layer: LayerName): number | null {
    let min: number | null = null;
    for (const [seq, w] of this.watches)
      if (w.unseen.has(layer) && (min === null || seq < min)) min = seq;
    return min;
  }

  /** Events `layer` has not shown yet. */
  outstanding(layer: LayerName): number {
    let n = 0;
    for (const w of this.watches.values()) if (w.unseen.has(layer)) n++;
    return n;
  }

  private dropIfDone(seq: number, w: Watch): void {
    if (w.unseen.size === 0 && w.unjudged.size === 0) this.watches.delete(seq);
  }
}
