/** One reconciliation: read the ledger, read every requested layer through its adapter, run the pure core, write and print the report. */

import * as fs from 'fs';
import * as path from 'path';
import type { Logger } from 'pino';
import {
  ReconciliationReportSchema,
  type ReconciliationReport,
  type RunManifest,
} from '@clickstream/contracts';
import { LEDGER_FILE, MANIFEST_FILE } from '@clickstream/ledger';
import type { SqlSource } from './adapters/clickhouse';
import type { IcebergLayerOptions } from './adapters/iceberg';
import { ingestTimesOfLayer } from './adapters/ingest';
import { readKafkaLayer, type KafkaReadStart, type TopicSource } from './adapters/kafka';
import type { SecondThread } from './adapters/second-thread';
import { isStoredLayer, readStoredLayers, type StoredRequest } from './adapters/stored-layers';
import type { ReconcilerConfig } from './config';
import type { LayerRead } from './core/contents';
import { KIND_OF, SOURCE_OF, type EventLayer } from './core/layers';
import { FATE, type LedgerIndex } from './core/ledger-index';
import { ledgerProblemsOf, overallVerdict, reconcile, resolvedByRaw } from './core/reconcile';
import { TIMED_KIND_OF, TIMED_SOURCE_OF } from './core/timed-layers';
import { readTimedLayers, reconcileTimedLayers } from './timed-run';
import { renderTable } from './core/table';

/** How the ledger and manifest of a run are read (adapters/ledger.ts and @clickstream/ledger in production). */
export interface LedgerSource {
  index(file: string, sizeHint: number): Promise<LedgerIndex>;
  /** Throws when the manifest is invalid; null when there is none. */
  manifest(file: string): RunManifest | null;
}

export interface RunDeps {
  config: ReconcilerConfig;
  logger: Logger;
  ledger: LedgerSource;
  /** Needed only when a Kafka layer is requested; every topic is read from `start`. */
  kafka: (start: KafkaReadStart) => TopicSource;
  /** Needed only when a ClickHouse layer is requested. */
  sql: () => SqlSource;
  iceberg?: (o: IcebergLayerOptions) => Promise<LayerRead>;
  /**
   * A second thread (adapters/second-thread.ts) that reads the stored layers (ClickHouse,
   * Iceberg) and reduces agg.sessions; without it, all is done on this thread.
   */
  secondThread?: (
    request: StoredRequest,
    ledgerEventIds: ArrayLike<string | null | undefined>,
  ) => SecondThreadLike;
  /** Where the table goes (stdout in production). */
  print(text: string): void;
}

/** What run() asks of a second thread (SecondThread in production). */
export type SecondThreadLike = Pick<SecondThread, 'stored' | 'aggregateReducer' | 'close'>;

/** The reconciler's exit codes (docs/RECONCILER.md): the verdict (0 also for --help), a bad flag, or a reconciliation that could not run. */
export const EXIT = { exact: 0, inexact: 1, unknown: 2, usage: 64, failure: 70 } as const;

export interface RunResult {
  report: ReconciliationReport;
  exitCode: number;
  message: string;
}

/**
 * Where this run's topics are read from. Every record of a run is stamped at or after the run
 * started: clickstream.raw by the broker (LogAppendTime) or with the ledger's send time, every
 * later event topic with its raw record's timestamp, the aggregate rows with their emission time.
 * So the first record stamped at or after (started_at - margin) of each partition starts the read,
 * and a long-lived topic costs the records since the run began, not its whole history. A skipped
 * record of the run could only show as missing, never as a pass.
 */
export function kafkaReadStart(
  config: Pick<ReconcilerConfig, 'kafkaFrom' | 'kafkaMarginS'>,
  manifest: Pick<RunManifest, 'started_at'> | null,
): KafkaReadStart {
  if (config.kafkaFrom === 'beginning')
    return { fromTimeMs: null, from: 'from the beginning (--kafka-from beginning)' };
  if (manifest === null)
    return { fromTimeMs: null, from: 'from the beginning (no manifest, so no run start)' };
  const fromTimeMs = manifest.started_at - config.kafkaMarginS * 1000;
  if (fromTimeMs <= 0)
    return { fromTimeMs: null, from: 'from the beginning (the run starts at the epoch)' };
  return {
    fromTimeMs,
    from: `from ${new Date(fromTimeMs).toISOString()} (the run's start less ${config.kafkaMarginS} s)`,
  };
}

export async function run(deps: RunDeps): Promise<RunResult> {
  const started = Date.now();
  const { config, logger } = deps;
  const manifest = deps.ledger.manifest(path.join(config.runDir, MANIFEST_FILE));
  if (manifest === null)
    logger.warn(
      { runDir: config.runDir },
      'no manifest: the ledger cannot be cross-checked against it',
    );
  const cutShort = manifest?.status === 'running';
  if (cutShort)
    logger.warn(
      { runDir: config.runDir },
      'the run was cut short: checking up to the last flushed batch of its ledger, no layer can be exact',
    );
  const ledgerFile = path.join(config.runDir, path.basename(manifest?.ledger_file ?? LEDGER_FILE));
  const ledger = await deps.ledger.index(ledgerFile, (manifest?.counts.sends ?? 0) + 1);
  const runId = manifest?.run_id ?? ledger.runId ?? path.basename(path.resolve(config.runDir));
  logger.info({ runId, rows: ledger.rows, ms: Date.now() - started }, 'ledger read');
  const start = kafkaReadStart(config, manifest);
  logger.info({ runId, fromTimeMs: start.fromTimeMs }, `topics read ${start.from}`);
  const kafka = (): TopicSource => deps.kafka(start);
  const stored: StoredRequest = {
    layers: config.layers.filter(isStoredLayer),
    runId,
    topics: config.topics,
    icebergTablePath: config.icebergTablePath,
    examples: config.examples,
  };
  // The second thread is started only for work it has: a stored layer, or agg.sessions to reduce; it gets
  // the ledger's event ids only to check the clean layers'.
  const useSecondThread =
    stored.layers.length > 0 ||
    config.timedLayers.some(
      (l) => TIMED_SOURCE_OF[l] === 'kafka' && TIMED_KIND_OF[l] === 'sessions',
    );
  const secondThread = useSecondThread
    ? deps.secondThread?.(
        stored,
        stored.layers.some((l) => KIND_OF[l] === 'clean') ? ledger.eventIds : [],
      )
    : undefined;
  try {
    return await reconcileRun(
      { ...deps, kafka, secondThread },
      { started, manifest, cutShort, ledger, ledgerFile, runId, stored },
    );
  } finally {
    await secondThread?.close();
  }
}

interface RunState {
  started: number;
  manifest: RunManifest | null;
  cutShort: boolean;
  ledger: LedgerIndex;
  ledgerFile: string;
  runId: string;
  stored: StoredRequest;
}

async function reconcileRun(
  deps: Omit<RunDeps, 'kafka' | 'secondThread'> & {
    kafka: () => TopicSource;
    secondThread: SecondThreadLike | undefined;
  },
  state: RunState,
): Promise<RunResult> {
  const { config, logger, kafka, secondThread } = deps;
  const { started, manifest, cutShort, ledger, ledgerFile, runId } = state;
  const timedDeps = {
    layers: config.timedLayers,
    topics: config.topics,
    ingestBoundMs: config.ingestBoundMs,
    examples: config.examples,
    logger,
    kafka,
    sql: deps.sql,
    ...(secondThread === undefined
      ? {}
      : { aggregateReducer: secondThread.aggregateReducer.bind(secondThread) }),
  };
  // The timed layers are read beside the event layers (their core needs the event layers' reads:
  // the ingest times and the raw-resolved expectation, so it runs after them).
  const timedReads = readTimedLayers(timedDeps, { runId, ledgerFile });
  timedReads.catch(() => undefined);
  const reads = await readLayers({ ...deps, kafka, secondThread }, runId, ledger, state.stored);
  const read = (layer: EventLayer): LayerRead => reads.get(layer) as LayerRead;
  const report = reconcile({
    ledger,
    manifestSends: manifest?.counts.sends ?? null,
    cutShort,
    runId,
    latenessMs: manifest?.lateness_ms,
    layers: config.layers.map((layer) => ({ layer, read: read(layer) })),
    examples: config.examples,
  });
  // The late stream and the aggregates are checked against the same raw-resolved expectation (a
  // failed send that raw holds counts), with the ingest times of the events.valid layer's read.
  const downstream = resolvedByRaw(
    ledger,
    config.layers.map((layer) => ({ layer, read: read(layer) })),
  );
  const ingest = ingestTimesOfLayer(reads.get('events.valid'));
  const timed = await reconcileTimedLayers(
    timedDeps,
    {
      runId,
      ledger: downstream,
      ledgerFile,
      latenessMs: report.lateness_ms,
      ...(ingest === undefined ? {} : { ingest }),
      ledgerProblems: ledgerProblemsOf({
        ledger,
        manifestSends: manifest?.counts.sends ?? null,
        cutShort,
        runId,
      }),
    },
    await timedReads,
  );
  report.layers.push(...timed);
  report.verdict = overallVerdict(report.layers);
  report.duration_ms = Date.now() - started;
  const valid = ReconciliationReportSchema.parse(report);
  fs.mkdirSync(path.dirname(config.out), { recursive: true });
  const tmp = `${config.out}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${JSON.stringify(valid, null, 2)}\n`);
  fs.renameSync(tmp, config.out);
  deps.print(renderTable(valid));
  const bad = valid.layers
    .filter((l) => l.verdict !== 'exact')
    .map((l) => `${l.layer} ${l.verdict}`);
  const message =
    valid.verdict === 'exact'
      ? `every layer exact (${valid.layers.length}); report ${config.out}`
      : `NOT exact: ${bad.length > 0 ? bad.join(', ') : 'no layer was read'}; report ${config.out}`;
  logger.info(
    { runId, verdict: valid.verdict, ms: valid.duration_ms, out: config.out },
    'reconciled',
  );
  return { report: valid, exitCode: EXIT[valid.verdict], message };
}

/**
 * Kafka end offsets are all taken first, so every topic is read up to the same moment; then the
 * Kafka topics are read one after the other (one topic's records in memory at a time) while
 * ClickHouse and Iceberg are read alongside (on the second thread when there is one).
 */
type LaneDeps = Pick<RunDeps, 'config' | 'logger' | 'sql' | 'iceberg'> & {
  kafka: () => TopicSource;
  secondThread: SecondThreadLike | undefined;
};

async function readLayers(
  deps: LaneDeps,
  runId: string,
  ledger: LedgerIndex,
  stored: StoredRequest,
): Promise<Map<EventLayer, LayerRead>> {
  // Raw bytes are kept only for the poison: what each dead letter must carry unchanged.
  const keepValue = (seq: number): boolean =>
    seq >= 0 && seq < ledger.size && ledger.fate[seq] === FATE.poison;
  const { config, logger } = deps;
  const out = new Map<EventLayer, LayerRead>();
  const bySource = (s: string): EventLayer[] => config.layers.filter((l) => SOURCE_OF[l] === s);
  const topicOf: Record<string, string> = {
    'clickstream.raw': config.topics.raw,
    'events.valid': config.topics.valid,
    'events.dlq': config.topics.dlq,
    'events.clean': config.topics.clean,
  };
  const done = (layer: EventLayer, read: LayerRead): void => {
    out.set(layer, read);
    const fields = read.ok
      ? { records: read.contents.seqs.length, foreign: read.contents.foreign }
      : { error: read.error };
    logger.info(
      { layer, ms: read.ok ? read.contents.readMs : read.readMs, ...fields },
      'layer read',
    );
  };

  const kafkaLane = async (): Promise<void> => {
    const layers = bySource('kafka');
    if (layers.length === 0) return;
    const kafka = deps.kafka();
    const ends = await Promise.all(
      layers.map((l) =>
        kafka.endOffsets(topicOf[l] as string).then(
          (m) => ({ ok: true as const, ends: m }),
          (err: unknown) => ({
            ok: false as const,
            error: err instanceof Error ? err.message : String(err),
          }),
        ),
      ),
    );
    for (const [i, layer] of layers.entries()) {
      const e = ends[i];
      const topic = topicOf[layer] as string;
      if (e === undefined || !e.ok) {
        done(layer, {
          ok: false,
          error: `topic ${topic}: end offsets: ${e?.ok === false ? e.error : 'none'}`,
          readMs: 0,
        });
        continue;
      }
      done(
        layer,
        await readKafkaLayer(kafka, {
          topic,
          kind: KIND_OF[layer],
          runId,
          ends: e.ends,
          ...(layer === 'clickstream.raw' ? { keepValue } : {}),
        }),
      );
    }
  };

  // The stored layers (ClickHouse, Iceberg) are read alongside, on a worker thread in production.
  const storedLane = async (): Promise<void> => {
    if (stored.layers.length === 0) return;
    if (deps.secondThread !== undefined) await deps.secondThread.stored(done);
    else
      await readStoredLayers(
        { sql: deps.sql, ...(deps.iceberg ? { iceberg: deps.iceberg } : {}) },
        stored,
        done,
      );
  };

  await Promise.all([kafkaLane(), storedLane()]);
  return out;
}
