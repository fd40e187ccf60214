/** Probe configuration: parsed once from flags and environment, failing fast on a bad value. */

import { z } from 'zod';
import { ConfigError, parseOptions, type OptionTable } from '@clickstream/cli-config';

export { ConfigError };

const ConfigSchema = z.object({
  bootstrap: z.string().min(1),
  intervalMs: z.coerce.number().int().min(100).max(60_000),
  metricsPort: z.coerce.number().int().min(1).max(65_535),
  clickhouseUrl: z.url(),
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal']),
});
export type ProbeConfig = z.infer<typeof ConfigSchema>;

const OPTIONS = {
  bootstrap: {
    flag: '--bootstrap',
    env: 'KAFKA_BOOTSTRAP',
    default: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    help: 'Kafka bootstrap servers',
  },
  intervalMs: {
    flag: '--interval-ms',
    env: 'PROBE_INTERVAL_MS',
    default: '5000',
    help: 'probe interval, ms',
  },
  metricsPort: {
    flag: '--metrics-port',
    env: 'PROBE_METRICS_PORT',
    default: '9401',
    help: 'metrics port',
  },
  clickhouseUrl: {
    flag: '--clickhouse-url',
    env: 'CLICKHOUSE_URL',
    default: 'http://127.0.0.1:18123',
    help: 'ClickHouse HTTP URL',
  },
  logLevel: { flag: '--log-level', env: 'LOG_LEVEL', default: 'info', help: 'pino level' },
} as const satisfies OptionTable;

export const USAGE = `usage: probe [--bootstrap HOSTS] [--interval-ms N] [--metrics-port N] [--clickhouse-url URL] [--log-level LEVEL]`;

export function parseConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): ProbeConfig {
  const parsed = parseOptions(OPTIONS, ConfigSchema, argv, env, {
    helpFlag: false,
    // An empty variable has always been a value here (and then fails validation), not "unset".
    emptyEnvIsUnset: false,
    messages: {
      unknown: (arg) => `unknown flag ${JSON.stringify(arg)}; ${USAGE}`,
      missing: (spec) => `flag ${spec.flag} needs a value; ${USAGE}`,
      invalid: (bad) => `invalid ${bad.key}=${JSON.stringify(bad.value)}: ${bad.expected}`,
    },
  });
  if (parsed.help) throw new ConfigError(USAGE); // unreachable: helpFlag is false
  return parsed.config;
}
