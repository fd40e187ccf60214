/** Reconciler configuration: parsed once from flags (and a few environment defaults), failing fast with the flag, the value and what was expected. */

import * as path from 'path';
import { TOPICS } from '@clickstream/contracts';
import { z } from 'zod';
import { EVENT_LAYERS, isEventLayer, type EventLayer } from './core/layers';

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
const topic = z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name');
const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a plain identifier');

const ConfigSchema = z.object({
  runDir: z.string().min(1, 'a run directory (results/runs/<run-id>)'),
  out: z.string().min(1),
  bootstrap: z.string().regex(/^[^,\s]+(,[^,\s]+)*$/, 'a comma-separated host:port list'),
  clientId: z.string().min(1),
  clickhouseUrl: z.url(),
  clickhouseDatabase: identifier,
  icebergTablePath: z.string().min(1),
  layers: z.array(z.enum(EVENT_LAYERS)).min(1),
  topics: z.object({ raw: topic, valid: topic, dlq: topic, clean: topic }),
  examples: z.coerce.number().int().min(1).max(20),
  logLevel: z.enum(LOG_LEVELS),
});
export type ReconcilerConfig = z.infer<typeof ConfigSchema>;

/** flag -> [config path, description]; the order is the order of the usage line. */
const FLAGS = {
  '--run-dir': 'runDir',
  '--out': 'out',
  '--bootstrap': 'bootstrap',
  '--client-id': 'clientId',
  '--clickhouse-url': 'clickhouseUrl',
  '--clickhouse-database': 'clickhouseDatabase',
  '--iceberg-table-path': 'icebergTablePath',
  '--layers': 'layers',
  '--topic-raw': 'topics.raw',
  '--topic-valid': 'topics.valid',
  '--topic-dlq': 'topics.dlq',
  '--topic-clean': 'topics.clean',
  '--examples': 'examples',
  '--log-level': 'logLevel',
} as const;
type Flag = keyof typeof FLAGS;

export const USAGE = `usage: reconciler --run-dir results/runs/<run-id> [--out FILE] [--bootstrap HOSTS] [--client-id ID] [--clickhouse-url URL] [--clickhouse-database DB] [--iceberg-table-path DIR] [--layers ${EVENT_LAYERS.join(',')}] [--topic-raw T] [--topic-valid T] [--topic-dlq T] [--topic-clean T] [--examples N] [--log-level LEVEL]`;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function isFlag(s: string): s is Flag {
  return Object.prototype.hasOwnProperty.call(FLAGS, s);
}

export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ReconcilerConfig {
  const given = new Map<Flag, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!isFlag(flag)) throw new ConfigError(`unknown flag ${JSON.stringify(flag)}; ${USAGE}`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new ConfigError(`flag ${flag} needs a value; ${USAGE}`);
    given.set(flag, value);
  }
  const runDir = given.get('--run-dir');
  if (runDir === undefined) throw new ConfigError(`flag --run-dir is required; ${USAGE}`);
  const layersArg = given.get('--layers');
  const layers = layersArg === undefined ? [...EVENT_LAYERS] : layersArg.split(',').map((s) => s.trim());
  const bad = layers.find((l) => !isEventLayer(l));
  if (bad !== undefined) {
    throw new ConfigError(`invalid --layers=${JSON.stringify(layersArg)}: unknown layer ${JSON.stringify(bad)}; expected a comma-separated subset of ${EVENT_LAYERS.join(',')}`);
  }
  const raw = {
    runDir,
    out: given.get('--out') ?? path.join(runDir, 'reconcile.json'),
    bootstrap: given.get('--bootstrap') ?? env.KAFKA_BOOTSTRAP ?? '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    clientId: given.get('--client-id') ?? `reconciler-${process.pid}`,
    clickhouseUrl: given.get('--clickhouse-url') ?? env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123',
    clickhouseDatabase: given.get('--clickhouse-database') ?? 'clickstream',
    icebergTablePath: given.get('--iceberg-table-path') ?? path.join('.run', 'iceberg', 'warehouse', 'clickstream', 'events_clean'),
    layers: layers as EventLayer[],
    topics: {
      raw: given.get('--topic-raw') ?? TOPICS.raw,
      valid: given.get('--topic-valid') ?? TOPICS.valid,
      dlq: given.get('--topic-dlq') ?? TOPICS.dlq,
      clean: given.get('--topic-clean') ?? TOPICS.clean,
    },
    examples: given.get('--examples') ?? '10',
    logLevel: given.get('--log-level') ?? env.LOG_LEVEL ?? 'info',
  };
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = (issue?.path ?? []).join('.');
    const flag = (Object.keys(FLAGS) as Flag[]).find((f) => FLAGS[f] === key || key.startsWith(`${FLAGS[f]}.`)) ?? key;
    const value = (issue?.path ?? []).reduce<unknown>((o, k) => (o as Record<PropertyKey, unknown>)?.[k as PropertyKey], raw);
    throw new ConfigError(`invalid ${flag}=${JSON.stringify(value)}: expected ${issue?.message ?? 'a valid value'}`);
  }
  return parsed.data;
}
