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

/**
 * A consumer of the loader's group with its own topics and flush interval. The fast lane loads the
 * tables a freshness goal reads; the slow lane (config.slowRoles) the rest, in fewer and larger
 * inserts: ClickHouse rewrites a small table's newest part at nearly every insert
 * (docs/CLICKHOUSE.md, "The slow lane"). Both are members of one group, so the committed offsets
 * stay where they were with one lane, and each topic's partitions go to the members subscribed to it.
 */
export interface Lane {
  name: 'fast' | 'slow';
  flushMs: number;
  topics: string[];
}

/** The lanes of a configuration, each with at least one topic. */
export function lanesOf(
  config: Pick<LoaderConfig, 'topics' | 'slowRoles' | 'flushMs' | 'slowFlushMs'>,
): Lane[] {
  const fast: string[] = [];
  const slow: string[] = [];
  for (const [role, topic] of config.topics) (config.slowRoles.has(role) ? slow : fast).push(topic);
  const lanes: Lane[] = [];
  if (fast.length > 0) lanes.push({ name: 'fast', flushMs: config.flushMs, topics: fast });
  if (slow.length > 0) lanes.push({ name: 'slow', flushMs: config.slowFlushMs, topics: slow });
  return lanes;
}

async function pollLag(d: RunDeps, topics: string[], signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
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
    await sleep(d.config.lagIntervalMs, signal);
  }
}

/** The one fault seam: after the Nth batch (of either lane: both share one handler) is durable in ClickHouse and before kafka-tx commits it, crash; a restart must redeliver it. */
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
  const lanes = lanesOf(config);
  // Every lane (and the lag gauge) stops when the process is told to stop, when one lane fails (a
  // lane that gave up must end the process, so that its supervisor restarts all of it), or when
  // the lanes have ended (the lag gauge then has nothing left to watch).
  const stopAll = new AbortController();
  const signal = AbortSignal.any([d.signal, stopAll.signal]);
  const topics = [...roleOf.keys()];
  const lag = config.lagIntervalMs > 0 ? pollLag(d, topics, signal) : Promise.resolve();
  const failing = new Set<string>();
  const onBatch = withFault(
    d,
    createSink({ warehouse: d.warehouse, roleOf, metrics: d.metrics, now: Date.now }),
  );
  d.health.phase = 'running';
  logger.info(
    {
      groupId: config.groupId,
      lanes: lanes.map((l) => ({ lane: l.name, flushMs: l.flushMs, topics: l.topics })),
      flushRows: config.flushRows,
    },
    'loading',
  );
  const consumeLane = (lane: Lane): Promise<void> =>
    d.consume({
      // The slow lane's client id tells its member apart in the group's description.
      client: lane.name === 'fast' ? d.kafka : { ...d.kafka, clientId: `${d.kafka.clientId}-slow` },
      groupId: config.groupId,
      topics: lane.topics,
      isolation: 'read_committed',
      startFrom: 'earliest',
      maxBatchMs: lane.flushMs,
      maxBatchRecords: config.flushRows,
      maxAttempts: config.maxAttempts,
      signal,
      onBatch,
      hooks: {
        onFlush: (ms) => {
          d.metrics.flushSeconds.observe(ms / 1000);
          d.metrics.lastFlush.set(Date.now() / 1000);
          failing.delete(lane.name);
          d.health.failing = failing.size > 0;
          d.health.lastFlushAt = Date.now();
        },
        onRetry: (attempt, e) => {
          failing.add(lane.name);
          d.health.failing = true;
          logger.warn(
            { lane: lane.name, attempt, err: e instanceof Error ? e.message : String(e) },
            'flush failed; retrying',
          );
        },
      },
    });
  try {
    const results = await Promise.allSettled(
      lanes.map((lane) =>
        consumeLane(lane).catch((e: unknown) => {
          stopAll.abort();
          throw e;
        }),
      ),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  } finally {
    d.health.phase = 'stopping';
    stopAll.abort();
    await lag;
  }
}
