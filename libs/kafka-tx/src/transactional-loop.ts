/** Consume-transform-produce with one Kafka transaction per batch (outputs + input offsets), wired to librdkafka. */
import { describeError } from './errors';
import { realClock } from './ports';
import { RdLoopConsumer } from './rd-consumer';
import { RdTxProducer, pendingTxCalls, txCallsSettled } from './rd-producer';
import { positiveIntOption, resolveTimeouts } from './settings';
import { runTxEngine } from './tx-engine';
import type { LoopResult, TransactionalLoopOptions } from './types';

/** How long the consumer's close waits for transactional calls still in flight. */
const CONSUMER_CLOSE_WAIT_MS = 15_000;

/** Longest time a commit keeps retrying retriable errors before the producer is replaced. */
const COMMIT_RETRY_BUDGET_MAX_MS = 4000;

/**
 * Runs until the signal aborts ({ reason: 'stopped' }) or a newer instance with the same
 * transactional id fences this one ({ reason: 'fenced' }: nothing more is written). Rejects on
 * a fatal producer error or a failed rewind, after closing the clients; the caller restarts.
 */
export async function runTransactionalLoop(o: TransactionalLoopOptions): Promise<LoopResult> {
  const maxBatchRecords = positiveIntOption('maxBatchRecords', o.maxBatchRecords, 500);
  const maxBatchMs = positiveIntOption('maxBatchMs', o.maxBatchMs, 100);
  if (o.inputTopics.length === 0)
    throw new Error('kafka-tx: option inputTopics=[] is invalid, expected at least one topic');
  const t = resolveTimeouts(o.client);
  const log =
    o.client.logger.child?.({ module: 'kafka-tx.loop', transactionalId: o.transactionalId }) ??
    o.client.logger;

  const consumer = await RdLoopConsumer.open(
    o.client,
    { groupId: o.groupId, isolation: 'read_committed', startFrom: 'earliest' },
    o.inputTopics,
    log,
  );
  let producer: RdTxProducer | undefined;
  // The engine replaces a producer stuck on a dead coordinator; the last one is closed below.
  const openProducer = async (): Promise<RdTxProducer> => {
    producer = await RdTxProducer.open(o.client, o.transactionalId, consumer.raw, log);
    return producer;
  };
  try {
    return await runTxEngine({
      consumer,
      producer: await openProducer(),
      openProducer,
      transform: o.transform,
      maxBatchRecords,
      maxBatchMs,
      // Stop retrying a commit well before the coordinator would abort the transaction itself, and
      // soon enough that a stuck coordinator costs seconds: a fresh producer then takes over.
      commitRetryBudgetMs: Math.min(
        Math.floor(t.transactionTimeoutMs / 2),
        COMMIT_RETRY_BUDGET_MAX_MS,
      ),
      hooks: o.hooks ?? {},
      signal: o.signal,
      logger: log,
      clock: realClock,
    });
  } catch (e) {
    log.error({ err: describeError(e) }, 'transactional loop failed');
    throw e;
  } finally {
    await producer?.close();
    // sendOffsets reads the consumer's group metadata on librdkafka's side: a consumer closed under
    // a call in flight (of a producer given up by a replacement, say) would be a use after free.
    if (!(await txCallsSettled(CONSUMER_CLOSE_WAIT_MS))) {
      log.error(
        { pendingTxCalls: pendingTxCalls() },
        'consumer left open: a transactional call is still in flight',
      );
    } else {
      await consumer.close();
    }
  }
}
