/** Reads the timed layers (late stream, windows, sessions in Kafka and ClickHouse) and the ingest times, then runs their pure core. */

import type { LayerReport } from '@clickstream/contracts';
import type { ReduceTask } from './adapters/second-thread';
import {
  type AggregateReducer,
  readClickHouseSessions,
  readClickHouseWindows,
  readKafkaAggregates,
  SESSION_EMISSIONS,
  WINDOW_EMISSIONS,
} from './adapters/aggregates';
import { readClickHouseLayer, type SqlSource } from './adapters/clickhouse';
import { readIngestTimes } from './adapters/ingest';
import { readKafkaLayer, type TopicSource } from './adapters/kafka';
import { readLedgerEvents } from './adapters/ledger-events';
import type { LedgerIndex } from './core/ledger-index';
import type { LedgerEvents } from './core/ledger-events';
import { reconcileTimed, type IngestRead, type TimedRead } from './core/reconcile-timed';
import { TIMED_KIND_OF, TIMED_SOURCE_OF, type TimedLayer } from './core/timed-layers';

export interface TimedTopics {
  valid: string;
  late: string;
  windows: string;
  sessions: string;
}

export interface TimedDeps {
  layers: readonly TimedLayer[];
  topics: TimedTopics;
  ingestBoundMs: number;
  examples: number;
  logger: { info(o: object, msg?: string): void };
  kafka: () => TopicSource;
  sql: () => SqlSource;
  /** Reduces agg.sessions elsewhere (the second thread, adapters/second-thread.ts); here without it. */
  aggregateReducer?: (task: ReduceTask) => AggregateReducer;
  /** Defaults to the columnar ledger reader. */
  ledgerEvents?: (file: string) => Promise<LedgerEvents>;
}

export interface TimedRun {
  runId: string;
  ledger: LedgerIndex;
  ledgerFile: string;
  latenessMs: number;
  ledgerProblems: string[];
  /** Ingest times already taken from the events.valid layer's read (ingestTimesOfLayer); read here otherwise. */
  ingest?: IngestRead;
}

async function readLayer(
  deps: TimedDeps,
  layer: TimedLayer,
  runId: string,
  kafka: () => TopicSource,
  sql: () => SqlSource,
): Promise<TimedRead> {
  const kind = TIMED_KIND_OF[layer];
  if (TIMED_SOURCE_OF[layer] === 'kafka') {
    const source = kafka();
    if (kind === 'late') {
      const ends = await source.endOffsets(deps.topics.late).catch(() => null);
      if (ends === null)
        return {
          layer,
          kind,
          read: { ok: false, error: `topic ${deps.topics.late}: end offsets`, readMs: 0 },
        };
      return {
        layer,
        kind,
        read: await readKafkaLayer(source, { topic: deps.topics.late, kind: 'clean', runId, ends }),
      };
    }
    if (kind === 'windows')
      return {
        layer,
        kind,
        read: await readKafkaAggregates(source, deps.topics.windows, runId, WINDOW_EMISSIONS),
      };
    const topic = deps.topics.sessions;
    const reducer = deps.aggregateReducer;
    return {
      layer,
      kind,
      read: await readKafkaAggregates(
        source,
        topic,
        runId,
        SESSION_EMISSIONS,
        reducer === undefined
          ? undefined
          : (ends) => reducer({ topic, shape: 'sessions', runId, ends }),
      ),
    };
  }
  const s = sql();
  if (kind === 'late')
    return {
      layer,
      kind,
      read: await readClickHouseLayer(s, {
        role: 'late',
        kind: 'clean',
        topic: deps.topics.late,
        runId,
        examples: deps.examples,
      }),
    };
  if (kind === 'windows') return { layer, kind, read: await readClickHouseWindows(s, runId) };
  return { layer, kind, read: await readClickHouseSessions(s, runId) };
}

/** What the timed layers read, before their core runs: started beside the event layers (run.ts). */
export interface TimedReads {
  events: LedgerEvents;
  layers: TimedRead[];
}

/**
 * Reads the ledger's event fields and every timed layer (one layer after another). Never rejects
 * for a layer: a layer that cannot be read is a failed read in its report.
 */
export async function readTimedLayers(
  deps: TimedDeps,
  run: Pick<TimedRun, 'runId' | 'ledgerFile'>,
): Promise<TimedReads> {
  if (deps.layers.length === 0) return { events: new Map(), layers: [] };
  let source: TopicSource | undefined;
  let warehouse: SqlSource | undefined;
  const kafka = (): TopicSource => (source ??= deps.kafka());
  const sql = (): SqlSource => (warehouse ??= deps.sql());
  const started = Date.now();
  const events = (deps.ledgerEvents ?? readLedgerEvents)(run.ledgerFile).then((e) => {
    deps.logger.info({ events: e.size, ms: Date.now() - started }, 'ledger events read');
    return e;
  });
  events.catch(() => undefined);
  const layers: TimedRead[] = [];
  for (const layer of deps.layers) {
    const t = Date.now();
    const read = await readLayer(deps, layer, run.runId, kafka, sql);
    deps.logger.info({ layer, ms: Date.now() - t, ok: read.read.ok }, 'layer read');
    layers.push(read);
  }
  return { events: await events, layers };
}

export async function reconcileTimedLayers(
  deps: TimedDeps,
  run: TimedRun,
  reads?: TimedReads,
): Promise<LayerReport[]> {
  if (deps.layers.length === 0) return [];
  const { events, layers } = reads ?? (await readTimedLayers(deps, run));
  // Ingest times: an event that reaches events.valid after its end offsets were taken is unknown
  // to this reconciliation, which makes the timed layers unknown rather than wrong.
  const ingest = run.ingest ?? (await readIngestTimes(deps.kafka(), deps.topics.valid, run.runId));
  deps.logger.info(
    { events: events.size, ingest: ingest.ok ? ingest.times.size : ingest.error },
    'ingest times read',
  );
  return reconcileTimed({
    ledger: run.ledger,
    events,
    ingest,
    latenessMs: run.latenessMs,
    ingestBoundMs: deps.ingestBoundMs,
    ledgerProblems: run.ledgerProblems,
    layers,
    examples: deps.examples,
  });
}
