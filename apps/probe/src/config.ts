/** Probe configuration: parsed once from flags and environment, failing fast on a bad value. */

import { z } from 'zod';

const ConfigSchema = z.object({
  bootstrap: z.string().min(1),
  intervalMs: z.coerce.number().int().min(100).max(60_000),
  metricsPort: z.coerce.number().int().min(1).max(65_535),
  clickhouseUrl: z.url(),
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal']),
});
export type ProbeConfig = z.infer<typeof ConfigSchema>;

const FLAGS: Record<string, keyof ProbeConfig> = {
  '--bootstrap': 'bootstrap',
  '--interval-ms': 'intervalMs',
  '--metrics-port': 'metricsPort',
  '--clickhouse-url': 'clickhouseUrl',
  '--log-level': 'logLevel',
};

export const USAGE = `usage: probe [--bootstrap HOSTS] [--interval-ms N] [--metrics-port N] [--clickhouse-url URL] [--log-level LEVEL]`;

export class ConfigError extends Error {}

export function parseConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): ProbeConfig {
  const raw: Record<string, string | undefined> = {
    bootstrap: env.KAFKA_BOOTSTRAP ?? '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    intervalMs: env.PROBE_INTERVAL_MS ?? '5000',
    metricsPort: env.PROBE_METRICS_PORT ?? '9401',
    clickhouseUrl: env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123',
    logLevel: env.LOG_LEVEL ?? 'info',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    const key = FLAGS[flag];
    if (!key) throw new ConfigError(`unknown flag ${JSON.stringify(flag)}; ${USAGE}`);
    const value = argv[++i];
    if (value === undefined) throw new ConfigError(`flag ${flag} needs a value; ${USAGE}`);
    raw[key] = value;
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '?');
    throw new ConfigError(`invalid ${key}=${JSON.stringify(raw[key])}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
