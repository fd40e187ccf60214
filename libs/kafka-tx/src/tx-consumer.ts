/** The consumer side of one transaction: collecting a batch, and rewinding the fetch positions when it was not committed. */
import { backoffMs, rewindOffsets } from './batch';
import { describeError } from './errors';
import type { Clock, LoopConsumer } from './ports';
import { FatalKafkaError } from './tx-retry';
import type { InRecord, Logger } from './types';

export interface CollectOptions {
  consumer: LoopConsumer;
  clock: Clock;
  maxBatchRecords: number;
  maxBatchMs: number;
  /** True once the caller asked to stop. */
  stopped(): boolean;
}

/**
 * Up to maxBatchRecords records, for at most maxBatchMs after the first one arrived; empty when
 * nothing arrived within maxBatchMs, on a stop, or when a rebalance is waiting (so that the caller
 * looks at signals and rebalances between transactions).
 */
export async function collectBatch(o: CollectOptions): Promise<InRecord[]> {
  const batch: InRecord[] = [];
  let deadline: number | null = null;
  while (batch.length < o.maxBatchRecords && !o.stopped() && !o.consumer.rebalancePending()) {
    const wait = deadline === null ? o.maxBatchMs : deadline - o.clock.now();
    if (wait <= 0) break;
    const got = await o.consumer.consume(o.maxBatchRecords - batch.length, wait);
    if (got.length === 0) {
      if (deadline === null) break; // idle: let the caller look at signals and rebalances
      continue;
    }
    if (deadline === null) deadline = o.clock.now() + o.maxBatchMs;
    for (const r of got) batch.push(r);
  }
  return batch;
}

/**
 * Moves the fetch positions back to the batch's first offsets, or (toCommitted) to the group's
 * committed offsets where there are any. Retries 5 times, then throws FatalKafkaError: continuing
 * without a rewind would skip the batch.
 */
export async function rewindBatch(
  o: { consumer: LoopConsumer; clock: Clock; logger: Logger },
  batch: InRecord[],
  toCommitted = false,
): Promise<void> {
  const first = rewindOffsets(batch);
  for (let attempt = 1; ; attempt++) {
    try {
      let to = first;
      if (toCommitted) {
        const committed = await o.consumer.committed(first);
        // No committed offset: nothing of this partition was ever committed, so the batch's start.
        to = first.map((p) => {
          const c = committed.find((x) => x.topic === p.topic && x.partition === p.partition);
          return c !== undefined && c.offset >= 0 ? { ...p, offset: c.offset } : p;
        });
      }
      await o.consumer.seek(to);
      return;
    } catch (e) {
      // Continuing without a rewind would skip the batch: give up loudly instead.
      if (attempt >= 5)
        throw new FatalKafkaError(
          `rewind failed: ${describeError(e).message}`,
          describeError(e).code,
        );
      o.logger.warn({ attempt, err: describeError(e) }, 'rewind failed; retrying');
      await o.clock.sleep(backoffMs(attempt));
    }
  }
}
