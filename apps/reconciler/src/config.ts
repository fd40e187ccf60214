/** Reconciler configuration: parsed once from flags (and a few environment defaults), failing fast with the flag, the value and what was expected. */

import * as fs from 'fs';
import * as path from 'path';
import { TOPICS } from '@clickstream/contracts';
import {
  ConfigError,
  DEFAULT_MESSAGES,
  hostPortList,
  identifier,
  intIn,
  logLevel,
  parseOptions,
  topicName,
  usage as formatUsage,
  type LogLevel,
  type OptionTable,
} from '@clickstream/cli-config';
import { z } from 'zod';
import { EVENT_LAYERS, isEventLayer, type EventLayer } from './core/layers';
import { TIMED_LAYERS, isTimedLayer, type TimedLayer } from './core/timed-layers';

/** Where topics are read from: see `kafkaReadStart` in run.ts. */
export const KAFKA_FROM = ['run-start', 'beginning'] as const;
export type KafkaFrom = (typeof KAFKA_FROM)[number];

const ALL_LAYERS: readonly string[] = [...EVENT_LAYERS, ...TIMED_LAYERS];

export { ConfigError };

/** The order is the order of the usage line; `out`, `clientId` and `layers` get their defaults after parsing. */
const OPTIONS = {
  runDir: { flag: '--run-dir', help: 'the run directory, results/runs/<run-id>' },
  out: { flag: '--out', help: 'report file (default <run-dir>/reconcile.json)' },
  bootstrap: {
    flag: '--bootstrap',
    env: 'KAFKA_BOOTSTRAP',
    default: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    help: 'Kafka bootstrap servers, host:port[,host:port...]',
  },
  clientId: { flag: '--client-id', help: 'Kafka client id (default reconciler-<pid>)' },
  clickhouseUrl: {
    flag: '--clickhouse-url',
    env: 'CLICKHOUSE_URL',
    default: 'http://127.0.0.1:18123',
    help: 'ClickHouse HTTP URL',
  },
  clickhouseDatabase: {
    flag: '--clickhouse-database',
    default: 'clickstream',
    help: 'ClickHouse database',
  },
  icebergTablePath: {
    flag: '--iceberg-table-path',
    default: path.join('.run', 'iceberg', 'warehouse', 'clickstream', 'events_clean'),
    help: 'Iceberg table directory',
  },
  layers: {
    flag: '--layers',
    help: `comma-separated layers to count, from ${ALL_LAYERS.join(',')} (default all)`,
  },
  topicRaw: { flag: '--topic-raw', default: TOPICS.raw, help: 'raw topic' },
  topicValid: { flag: '--topic-valid', default: TOPICS.valid, help: 'valid topic' },
  topicDlq: { flag: '--topic-dlq', default: TOPICS.dlq, help: 'dead-letter topic' },
  topicClean: { flag: '--topic-clean', default: TOPICS.clean, help: 'clean topic' },
  topicLate: { flag: '--topic-late', default: TOPICS.late, help: 'late-event topic' },
  topicWindows: {
    flag: '--topic-windows',
    default: TOPICS.windows,
    help: 'window aggregate topic',
  },
  topicSessions: {
    flag: '--topic-sessions',
    default: TOPICS.sessions,
    help: 'session aggregate topic',
  },
  ingestBoundMs: {
    flag: '--ingest-bound-ms',
    default: '60000',
    help: "largest |ingest_time - ledger send_time| of an event, ms (beyond it the ingest time is not the broker's)",
  },
  kafkaFrom: {
    flag: '--kafka-from',
    default: 'run-start',
    help: "where each topic is read from: run-start (the first record stamped at or after the manifest's started_at minus --kafka-margin-s) or beginning",
  },
  kafkaMarginS: {
    flag: '--kafka-margin-s',
    default: '60',
    help: 'seconds before the run start from which topics are read (clock slack; as --ingest-bound-ms), 0 to 86400',
  },
  kafkaReader: {
    flag: '--kafka-reader',
    env: 'KAFKA_TOPIC_READER',
    default: 'auto',
    help: 'how topics are read: auto (the compiled topic reader, apps/topic-reader, when it is built; readTopic otherwise), node (readTopic, librdkafka), or the path of a topic-reader binary',
  },
  examples: { flag: '--examples', default: '10', help: 'examples per anomaly, 1 to 20' },
  logLevel: {
    flag: '--log-level',
    env: 'LOG_LEVEL',
    default: 'info',
    help: 'pino level: fatal, error, warn, info, debug, trace, silent',
  },
} as const satisfies OptionTable;

const ConfigSchema = z.object({
  runDir: z.string().min(1, 'a run directory (results/runs/<run-id>)'),
  out: z.string().min(1).optional(),
  bootstrap: hostPortList,
  clientId: z.string().min(1).optional(),
  clickhouseUrl: z.url(),
  clickhouseDatabase: identifier,
  icebergTablePath: z.string().min(1),
  layers: z.string().optional(),
  topicRaw: topicName,
  topicValid: topicName,
  topicDlq: topicName,
  topicClean: topicName,
  topicLate: topicName,
  topicWindows: topicName,
  topicSessions: topicName,
  ingestBoundMs: intIn(0, 86_400_000),
  kafkaFrom: z.enum(KAFKA_FROM, `one of ${KAFKA_FROM.join(', ')}`),
  kafkaMarginS: intIn(0, 86_400),
  kafkaReader: z.string().min(1, 'auto, node or the path of a topic-reader binary'),
  examples: intIn(1, 20),
  logLevel,
});

export interface ReconcilerConfig {
  runDir: string;
  out: string;
  bootstrap: string;
  clientId: string;
  clickhouseUrl: string;
  clickhouseDatabase: string;
  icebergTablePath: string;
  layers: EventLayer[];
  /** The late stream and the aggregates (issue #12), checked after the event layers. */
  timedLayers: TimedLayer[];
  topics: {
    raw: string;
    valid: string;
    dlq: string;
    clean: string;
    late: string;
    windows: string;
    sessions: string;
  };
  ingestBoundMs: number;
  /** Read each topic from the run's start (less the margin) or from the beginning. */
  kafkaFrom: KafkaFrom;
  kafkaMarginS: number;
  /** The compiled topic reader to read topics with, or null for readTopic (see resolveKafkaReader). */
  kafkaReaderPath: string | null;
  examples: number;
  logLevel: LogLevel;
}

export type ParsedArgs = { help: true } | { help: false; config: ReconcilerConfig };

const HEADER = `Usage: node apps/reconciler/dist/main.js --run-dir results/runs/<run-id> [options]

Writes the report to --out and a table to stdout; logs go to stderr.
`;

export function usage(): string {
  return formatUsage(OPTIONS, HEADER);
}

/** Flags win over environment, environment over defaults; the first invalid value throws a ConfigError. */
export function parseConfig(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): ParsedArgs {
  const parsed = parseOptions(OPTIONS, ConfigSchema, argv, env, {
    header: HEADER,
    // An empty variable has always been a value here (and then fails validation), not "unset".
    emptyEnvIsUnset: false,
    messages: {
      invalid: (bad) =>
        bad.key === 'runDir' && bad.value === undefined
          ? '--run-dir is required: the run directory, results/runs/<run-id>'
          : DEFAULT_MESSAGES.invalid(bad),
    },
  });
  if (parsed.help) return { help: true };
  const c = parsed.config;
  const layers =
    c.layers === undefined ? [...ALL_LAYERS] : c.layers.split(',').map((s) => s.trim());
  const bad = layers.find((l) => !isEventLayer(l) && !isTimedLayer(l));
  if (bad !== undefined) {
    throw new ConfigError(
      `--layers: got ${JSON.stringify(c.layers)}; expected a comma-separated subset of ${ALL_LAYERS.join(',')} (unknown layer ${JSON.stringify(bad)})`,
    );
  }
  const config: ReconcilerConfig = {
    runDir: c.runDir,
    out: c.out ?? path.join(c.runDir, 'reconcile.json'),
    bootstrap: c.bootstrap,
    clientId: c.clientId ?? `reconciler-${process.pid}`,
    clickhouseUrl: c.clickhouseUrl,
    clickhouseDatabase: c.clickhouseDatabase,
    icebergTablePath: c.icebergTablePath,
    layers: layers.filter(isEventLayer),
    timedLayers: layers.filter(isTimedLayer),
    topics: {
      raw: c.topicRaw,
      valid: c.topicValid,
      dlq: c.topicDlq,
      clean: c.topicClean,
      late: c.topicLate,
      windows: c.topicWindows,
      sessions: c.topicSessions,
    },
    ingestBoundMs: c.ingestBoundMs,
    kafkaFrom: c.kafkaFrom,
    kafkaMarginS: c.kafkaMarginS,
    kafkaReaderPath: resolveKafkaReader(c.kafkaReader),
    examples: c.examples,
    logLevel: c.logLevel,
  };
  return { help: false, config };
}

/** Where `nx run topic-reader:build` puts the compiled topic reader (from src/ under jest, dist/ when built). */
export const DEFAULT_TOPIC_READER = path.resolve(
  __dirname,
  '..',
  '..',
  'topic-reader',
  'dist',
  'topic-reader',
);

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * --kafka-reader: `node` reads with readTopic; `auto` with the compiled reader when it is built
 * (both give the same records, docs/RECONCILER.md), and a path must be an executable file.
 */
export function resolveKafkaReader(value: string, fallback = DEFAULT_TOPIC_READER): string | null {
  if (value === 'node') return null;
  if (value === 'auto') return executable(fallback) ? fallback : null;
  if (!executable(value))
    throw new ConfigError(
      `--kafka-reader: got ${JSON.stringify(value)}; expected auto, node or the path of an executable topic-reader (build it with: npx nx run topic-reader:build)`,
    );
  return path.resolve(value);
}

/** The real process's configuration; the only reader of process.env in the reconciler. */
export function loadConfig(argv: readonly string[] = process.argv.slice(2)): ParsedArgs {
  return parseConfig(argv, process.env);
}
