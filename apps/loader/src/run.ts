/** The loader's life: apply the DDL, then consume every configured topic at least once into its table until stopped. */
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { AtLeastOnceOptions, InRecord, KafkaClientOptions } from '@clickstream/kafka-tx';
import type { TableRole, Warehouse } from '@clickstream/warehouse';
import type { LoaderConfig } from './config';
import type { Health } from './health';
import type { LoaderMetrics } from './metrics';
import { createSink } from './sink';

export interface RunDeps {
  config: LoaderConfig;
  logger: Logger;
  kafka: KafkaClientOptions;
  warehouse: Warehouse;
  metrics: LoaderMetrics;
  health: Health;
  signal: AbortSignal;
  consume(o: AtLeastOnceOptions): Promise<void>;
  /** Uncommitted records of the group on a topic; polled for the lag gauge. */
  lagOf(topic: string): Promise<number>;
  /** Ends the process at once, as a crash would (used only by the fault seam). */
  crash(): void;
}

/** Resolves after ms, or at once when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return sleepFor(ms, undefined, { signal }).catch(() => undefined);
}

/** Applies the DDL, retrying with the same bounded backoff as batches (ClickHouse may still be starting). */
export async function migrate(
  d: Pick<RunDeps, 'config' | 'logger' | 'warehouse' | 'signal'>,
): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await d.warehouse.applyDdl(d.config.ddlDir, d.config.backfillDir);
    } catch (e) {
      if (attempt >= d.config.maxAttempts || d.signal.aborted) throw e;
      d.logger.warn(
        { attempt, err: e instanceof Error ? e.message : String(e) },
        'ddl failed; retrying',
      );
      await sleep(Math.min(5000, 200 * 2 ** (attempt - 1)), d.signal);
    }
  }
}

async function pollLag(d: RunDeps, topics: string[]): Promise<void> {
  while (!d.signal.aborted) {
    for (const topic of topics) {
      try {
        d.metrics.lag.set({ topic }, await d.lagOf(topic));
      } catch (e) {
        d.logger.debug(
          { topic, err: e instanceof Error ? e.message : String(e) },
          'lag unavailable',
        );
      }
    }
    await sleep(d.config.lagIntervalMs, d.signal);
  }
}

/** The one fault seam: after the Nth batch is durable in ClickHouse and before kafka-tx commits it, crash; a restart must redeliver it. */
function withFault(
  d: RunDeps,
  sink: (records: InRecord[]) => Promise<void>,
): (records: InRecord[]) => Promise<void> {
  if (d.config.fault === 'none') return sink;
  let batches = 0;
  return async (records) => {
    await sink(records);
    batches += 1;
    if (batches === d.config.faultAfterBatches) {
      d.logger.warn(
        { fault: d.config.fault, batches, records: records.length },
        'injected fault: crashing before the offset commit',
      );
      d.crash();
    }
  };
}

export async function run(d: RunDeps): Promise<void> {
  const { config, logger } = d;
  const files = await migrate(d);
  logger.info({ database: config.database, files }, 'ddl ready');
  const roleOf = new Map<string, TableRole>(
    [...config.topics].map(([role, topic]) => [topic, role]),
  );
  const topics = [...roleOf.keys()];
  const lag = config.lagIntervalMs > 0 ? pollLag(d, topics) : Promise.resolve();
  d.health.phase = 'running';
  logger.info(
    {
      topics: Object.fromEntries(config.topics),
      groupId: config.groupId,
      flushMs: config.flushMs,
      flushRows: config.flushRows,
    },
    'loading',
  );
  try {
    await d.consume({
      client: d.kafka,
      groupId: config.groupId,
      topics,
      isolation: 'read_committed',
      startFrom: 'earliest',
      maxBatchMs: config.flushMs,
      maxBatchRecords: config.flushRows,
      maxAttempts: config.maxAttempts,
      signal: d.signal,
      onBatch: withFault(
        d,
        createSink({ warehouse: d.warehouse, roleOf, metrics: d.metrics, now: Date.now }),
      ),
      hooks: {
        onFlush: (ms) => {
          d.metrics.flushSeconds.observe(ms / 1000);
          d.metrics.lastFlush.set(Date.now() / 1000);
          d.health.failing = false;
          d.health.lastFlushAt = Date.now();
        },
        onRetry: (attempt, e) => {
          d.health.failing = true;
          logger.warn(
            { attempt, err: e instanceof Error ? e.message : String(e) },
            'flush failed; retrying',
          );
        },
      },
    });
  } finally {
    d.health.phase = 'stopping';
    await lag;
  }
}
