/** The batches handed to the sink and not yet booked: booked in send order as their outcomes arrive, so the ledger stays in seq order. */

import type { PlannedSend } from './planned';
import type { Sink, SinkOutcome } from './sink';

/** Where settled batches go (the run's Books). */
export interface Booker {
  record(sends: readonly PlannedSend[], outcomes: readonly SinkOutcome[]): void;
}

interface Batch {
  sends: PlannedSend[];
  promise: Promise<SinkOutcome[]>;
  /** Set when the promise resolves, so finished batches are booked without waiting on the rest. */
  outcomes: SinkOutcome[] | null;
}

export class InFlight {
  private readonly queue: Batch[] = [];
  /** Records handed to the sink and not booked yet. */
  records = 0;

  constructor(private readonly books: Booker) {}

  get batches(): number {
    return this.queue.length;
  }

  /** Hands a batch to the sink. A sink must not reject; if one does anyway, its records are booked as failed, never dropped. */
  send(sink: Sink, sends: PlannedSend[]): void {
    const promise = sink.send(sends).catch((err: unknown) => {
      const error = `sink failed: ${err instanceof Error ? err.message : String(err)}`;
      return sends.map((): SinkOutcome => ({
        delivery: 'failed',
        partition: null,
        offset: null,
        error,
      }));
    });
    const batch: Batch = { sends, promise, outcomes: null };
    void promise.then((outcomes) => {
      batch.outcomes = outcomes;
    });
    this.queue.push(batch);
    this.records += sends.length;
  }

  /** Books every batch at the head of the queue that already has its outcomes. */
  settleFinished(): void {
    while (this.queue.length > 0 && this.queue[0]!.outcomes !== null) {
      const batch = this.queue.shift()!;
      this.book(batch, batch.outcomes!);
    }
  }

  /** Waits for the oldest batch's outcomes and books it. */
  async settleOldest(): Promise<void> {
    const batch = this.queue.shift();
    if (!batch) return;
    this.book(batch, batch.outcomes ?? (await batch.promise));
  }

  /** Waits until at most `max` records are in flight. */
  async settleDownTo(max: number): Promise<void> {
    while (this.records > max) await this.settleOldest();
  }

  /** Waits for every batch and books it. */
  async settleAll(): Promise<void> {
    while (this.queue.length > 0) await this.settleOldest();
  }

  private book(batch: Batch, outcomes: SinkOutcome[]): void {
    this.books.record(batch.sends, outcomes);
    this.records -= batch.sends.length;
  }
}
