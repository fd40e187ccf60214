/** At-least-once consumer for sinks, wired to librdkafka: offsets are committed only after the batch handler resolved. */
import { runAloEngine } from './alo-engine';
import { describeError } from './errors';
import { realClock } from './ports';
import { RdLoopConsumer } from './rd-consumer';
import { positiveIntOption } from './settings';
import type { AtLeastOnceOptions } from './types';

/**
 * Resolves when the signal aborts (after flushing and committing what was consumed); rejects with
 * BatchHandlerError when onBatch keeps failing, without committing that batch, so that it is
 * redelivered to the next consumer. Never skips a batch.
 */
export async function runAtLeastOnceConsumer(o: AtLeastOnceOptions): Promise<void> {
  const maxBatchRecords = positiveIntOption('maxBatchRecords', o.maxBatchRecords, 5000);
  const maxBatchMs = positiveIntOption('maxBatchMs', o.maxBatchMs, 1000);
  const maxAttempts = positiveIntOption('maxAttempts', o.maxAttempts, 5);
  if (o.topics.length === 0)
    throw new Error('kafka-tx: option topics=[] is invalid, expected at least one topic');
  const log =
    o.client.logger.child?.({ module: 'kafka-tx.at-least-once', groupId: o.groupId }) ??
    o.client.logger;
  const consumer = await RdLoopConsumer.open(
    o.client,
    {
      groupId: o.groupId,
      isolation: o.isolation ?? 'read_committed',
      startFrom: o.startFrom ?? 'earliest',
    },
    o.topics,
    log,
  );
  try {
    await runAloEngine({
      consumer,
      onBatch: o.onBatch,
      maxBatchRecords,
      maxBatchMs,
      maxAttempts,
      hooks: o.hooks ?? {},
      signal: o.signal,
      logger: log,
      clock: realClock,
    });
  } catch (e) {
    log.error({ err: describeError(e) }, 'at-least-once consumer failed');
    throw e;
  } finally {
    await consumer.close();
  }
}
