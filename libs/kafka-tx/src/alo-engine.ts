/** The at-least-once batching state machine: a batch's offsets are committed only after its handler resolved. */
import { backoffMs, nextOffsets } from './batch';
import { describeError } from './errors';
import type { Clock, LoopConsumer, TopicPartitionOffset } from './ports';
import type { InRecord, Logger } from './types';

export interface AloEngineDeps {
  consumer: LoopConsumer;
  onBatch(records: InRecord[]): Promise<void>;
  maxBatchRecords: number;
  maxBatchMs: number;
  maxAttempts: number;
  hooks: {
    onFlush?(ms: number, records: number): void;
    onRetry?(attempt: number, error: unknown): void;
  };
  signal?: AbortSignal;
  logger: Logger;
  clock: Clock;
}

/** The batch handler failed maxAttempts times; nothing of the batch was committed. */
export class BatchHandlerError extends Error {
  constructor(
    readonly attempts: number,
    readonly records: number,
    override readonly cause: unknown,
  ) {
    super(
      `onBatch failed ${attempts} times for a batch of ${records} records: ${describeError(cause).message}`,
    );
    this.name = 'BatchHandlerError';
  }
}

/** Polls at most this long at a time, so that a stop or a rebalance is noticed quickly on a quiet topic. */
const MAX_POLL_MS = 200;

export async function runAloEngine(d: AloEngineDeps): Promise<void> {
  const log = d.logger;
  const stopped = (): boolean => d.signal?.aborted === true;
  let pending: InRecord[] = [];
  let firstAt: number | null = null;
  // Offsets committed since the last rebalance; re-committed synchronously at shutdown. Reset on
  // rebalance so that a partition now owned by another member is never committed backwards.
  const committed = new Map<string, TopicPartitionOffset>();

  async function flush(): Promise<void> {
    if (pending.length === 0) return;
    const batch = pending;
    const started = d.clock.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await d.onBatch(batch);
        break;
      } catch (e) {
        if (attempt >= d.maxAttempts) throw new BatchHandlerError(attempt, batch.length, e);
        log.warn(
          { attempt, records: batch.length, err: describeError(e) },
          'batch handler failed; retrying',
        );
        try {
          d.hooks.onRetry?.(attempt, e);
        } catch {
          /* a metrics hook must not change the outcome */
        }
        await d.clock.sleep(backoffMs(attempt, 200, 5000));
      }
    }
    // Only now is the batch durable in the sink: its offsets may be committed.
    const offsets = nextOffsets(batch);
    for (const o of offsets) committed.set(`${o.topic}\u0000${o.partition}`, o);
    d.consumer.commitAsync(offsets);
    pending = [];
    firstAt = null;
    try {
      d.hooks.onFlush?.(d.clock.now() - started, batch.length);
    } catch {
      /* a metrics hook must not change the outcome */
    }
  }

  while (!stopped()) {
    if (d.consumer.rebalancePending()) {
      // Flush before releasing partitions so that their new owner does not repeat this batch.
      await flush();
      d.consumer.applyRebalances();
      committed.clear();
    }
    const remaining = firstAt === null ? MAX_POLL_MS : firstAt + d.maxBatchMs - d.clock.now();
    if (pending.length > 0 && remaining <= 0) {
      await flush();
      continue;
    }
    const got = await d.consumer.consume(
      d.maxBatchRecords - pending.length,
      Math.max(1, Math.min(remaining, MAX_POLL_MS)),
    );
    if (got.length > 0 && firstAt === null) firstAt = d.clock.now();
    for (const r of got) pending.push(r);
    if (pending.length >= d.maxBatchRecords) await flush();
  }
  await flush();
  if (committed.size > 0) {
    try {
      await d.consumer.commitSync([...committed.values()]);
    } catch (e) {
      // Not a loss: the records are redelivered to the next consumer (at-least-once).
      log.warn({ err: describeError(e) }, 'final offset commit failed');
    }
  }
  if (d.consumer.rebalancePending()) d.consumer.applyRebalances();
}
