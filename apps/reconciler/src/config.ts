/** Reconciler configuration: parsed once from flags (and a few environment defaults), failing fast with the flag, the value and what was expected. */

import * as path from 'path';
import { TOPICS } from '@clickstream/contracts';
import { ConfigError, parseOptions, type OptionTable } from '@clickstream/cli-config';
import { z } from 'zod';
import { EVENT_LAYERS, isEventLayer, type EventLayer } from './core/layers';

export { ConfigError };

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
const topic = z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name');
const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a plain identifier');

/** The order is the order of the usage line; `out`, `clientId` and `layers` get their defaults after parsing. */
const OPTIONS = {
  runDir: { flag: '--run-dir', help: 'the run directory, results/runs/<run-id>' },
  out: { flag: '--out', help: 'report file (default <run-dir>/reconcile.json)' },
  bootstrap: {
    flag: '--bootstrap',
    env: 'KAFKA_BOOTSTRAP',
    default: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    help: 'Kafka bootstrap servers',
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
  layers: { flag: '--layers', help: 'comma-separated layers to count (default all)' },
  topicRaw: { flag: '--topic-raw', default: TOPICS.raw, help: 'raw topic' },
  topicValid: { flag: '--topic-valid', default: TOPICS.valid, help: 'valid topic' },
  topicDlq: { flag: '--topic-dlq', default: TOPICS.dlq, help: 'dead-letter topic' },
  topicClean: { flag: '--topic-clean', default: TOPICS.clean, help: 'clean topic' },
  examples: { flag: '--examples', default: '10', help: 'examples per anomaly' },
  logLevel: { flag: '--log-level', env: 'LOG_LEVEL', default: 'info', help: 'pino level' },
} as const satisfies OptionTable;

const ConfigSchema = z.object({
  runDir: z.string().min(1, 'a run directory (results/runs/<run-id>)'),
  out: z.string().min(1).optional(),
  bootstrap: z.string().regex(/^[^,\s]+(,[^,\s]+)*$/, 'a comma-separated host:port list'),
  clientId: z.string().min(1).optional(),
  clickhouseUrl: z.url(),
  clickhouseDatabase: identifier,
  icebergTablePath: z.string().min(1),
  layers: z.string().optional(),
  topicRaw: topic,
  topicValid: topic,
  topicDlq: topic,
  topicClean: topic,
  examples: z.coerce.number().int().min(1).max(20),
  logLevel: z.enum(LOG_LEVELS),
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
  topics: { raw: string; valid: string; dlq: string; clean: string };
  examples: number;
  logLevel: (typeof LOG_LEVELS)[number];
}

export const USAGE = `usage: reconciler --run-dir results/runs/<run-id> [--out FILE] [--bootstrap HOSTS] [--client-id ID] [--clickhouse-url URL] [--clickhouse-database DB] [--iceberg-table-path DIR] [--layers ${EVENT_LAYERS.join(',')}] [--topic-raw T] [--topic-valid T] [--topic-dlq T] [--topic-clean T] [--examples N] [--log-level LEVEL]`;

export function parseConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): ReconcilerConfig {
  const parsed = parseOptions(OPTIONS, ConfigSchema, argv, env, {
    helpFlag: false,
    // An empty variable has always been a value here (and then fails validation), not "unset".
    emptyEnvIsUnset: false,
    messages: {
      unknown: (_arg, name) => `unknown flag ${JSON.stringify(name)}; ${USAGE}`,
      missing: (spec) => `flag ${spec.flag} needs a value; ${USAGE}`,
      invalid: (bad) =>
        bad.key === 'runDir' && bad.value === undefined
          ? `flag --run-dir is required; ${USAGE}`
          : `invalid ${bad.spec.flag}=${JSON.stringify(bad.value)}: expected ${bad.expected}`,
    },
  });
  if (parsed.help) throw new ConfigError(USAGE); // unreachable: helpFlag is false
  const c = parsed.config;
  const layers =
    c.layers === undefined ? [...EVENT_LAYERS] : c.layers.split(',').map((s) => s.trim());
  const bad = layers.find((l) => !isEventLayer(l));
  if (bad !== undefined) {
    throw new ConfigError(
      `invalid --layers=${JSON.stringify(c.layers)}: unknown layer ${JSON.stringify(bad)}; expected a comma-separated subset of ${EVENT_LAYERS.join(',')}`,
    );
  }
  return {
    runDir: c.runDir,
    out: c.out ?? path.join(c.runDir, 'reconcile.json'),
    bootstrap: c.bootstrap,
    clientId: c.clientId ?? `reconciler-${process.pid}`,
    clickhouseUrl: c.clickhouseUrl,
    clickhouseDatabase: c.clickhouseDatabase,
    icebergTablePath: c.icebergTablePath,
    layers: layers as EventLayer[],
    topics: { raw: c.topicRaw, valid: c.topicValid, dlq: c.topicDlq, clean: c.topicClean },
    examples: c.examples,
    logLevel: c.logLevel,
  };
}
