/** Runs kafka-tx's transactional loop with route() as its transform: metrics hooks, restart after a failure, and a watchdog for a hung transaction. */

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { KafkaClientOptions, LoopHooks, LoopResult } from '@clickstream/kafka-tx';
import type { GatekeeperConfig } from './config';
import type { HealthTracker } from './health';
import { PendingTally, type GatekeeperMetrics } from './metrics';
import type { KafkaPort } from './ports';
import { createTransform } from './transform';

export interface LoopDeps {
  config: GatekeeperConfig;
  client: KafkaClientOptions;
  kafka: KafkaPort;
  metrics: GatekeeperMetrics;
  health: HealthTracker;
  logger: Logger;
  signal: AbortSignal;
  /** Called once when a transaction has been in flight longer than config.stallExitMs. */
  onStuck(inFlightMs: number): void;
}

function hooks(d: LoopDeps, tally: PendingTally): LoopHooks {
  const { metrics, health, logger, config } = d;
  return {
    onRecordsIn: (n) => {
      metrics.recordsIn.inc(n);
      health.batchCollected();
    },
    onCommit: (ms, records) => {
      tally.commitTo(metrics);
      metrics.committed.inc();
      metrics.batchSeconds.observe(ms / 1000);
      metrics.batchRecords.observe(records);
      health.committed();
      // Per-commit detail only at debug: the broker-kill benchmark reads the commit timeline from it.
      logger.debug({ ms, records }, 'transaction committed');
    },
    onAbort: (error) => {
      tally.reset();
      metrics.aborted.inc();
      health.aborted();
      logger.warn({ err: error }, 'transaction aborted; the batch will be retried');
    },
    onFenced: () => {
      metrics.fenced.inc();
      logger.error(
        { transactionalId: config.transactionalId },
        'fenced by a newer instance with the same transactional id',
      );
    },
  };
}

/**
 * A librdkafka transactional call can hang past its own timeout when a coordinator dies
 * (librdkafka#5456, #5511), and nothing in-process can cancel it. Restarting the process is
 * safe: the new producer's initTransactions fences and aborts the stuck transaction.
 */
function startWatchdog(d: LoopDeps): () => void {
  if (d.config.stallExitMs === 0) return () => undefined;
  let fired = false;
  const timer = setInterval(
    () => {
      const inFlightMs = d.health.inFlightMs();
      if (fired || inFlightMs === null) return;
      if (inFlightMs >= d.config.stallExitMs) {
        fired = true;
        d.health.stuck();
        d.onStuck(inFlightMs);
      }
    },
    Math.min(1000, d.config.stallExitMs),
  );
  timer.unref();
  return () => clearInterval(timer);
}

/** Resolves when stopped or fenced; a failed loop (e.g. a fatal producer error) is restarted with back-off, never given up. */
export async function runLoop(d: LoopDeps): Promise<LoopResult> {
  const { config, kafka, logger, signal } = d;
  const tally = new PendingTally();
  const stopWatchdog = startWatchdog(d);
  let backoff = config.loopRestartMs;
  try {
    for (;;) {
      const commitsAtStart = d.health.commits;
      try {
        d.health.loopStarted();
        return await kafka.runTransactionalLoop({
          client: d.client,
          groupId: config.groupId,
          transactionalId: config.transactionalId,
          inputTopics: [config.rawTopic],
          transform: createTransform(
            { valid: config.validTopic, dlq: config.dlqTopic },
            tally,
            logger,
          ),
          maxBatchRecords: config.batchRecords,
          maxBatchMs: config.batchMs,
          signal,
          hooks: hooks(d, tally),
        });
      } catch (error) {
        // Whatever the loop wrote in its open transaction is aborted by the next initTransactions.
        tally.reset();
        d.health.loopFailed();
        d.metrics.loopRestarts.inc();
        if (signal.aborted) return { reason: 'stopped' };
        if (d.health.commits > commitsAtStart) backoff = config.loopRestartMs;
        logger.error(
          { err: error, restartInMs: backoff },
          'transactional loop failed; restarting it',
        );
        // Aborted on stop: the check below ends the loop.
        await sleep(backoff, undefined, { signal }).catch(() => undefined);
        if (signal.aborted) return { reason: 'stopped' };
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  } finally {
    stopWatchdog();
  }
}
