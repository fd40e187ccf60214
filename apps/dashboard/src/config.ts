/** Dashboard configuration: parsed once from flags and environment, failing fast on a bad value. */

import { z } from 'zod';
import { DEFAULT_DATABASE } from '@clickstream/warehouse';
import {
  ConfigError,
  parseOptions,
  usage as formatUsage,
  type OptionTable,
} from '@clickstream/cli-config';

export { ConfigError };

const intIn = (min: number, max: number) => {
  const expected = `an integer from ${min} to ${max}`;
  return z.coerce.number({ error: expected }).int(expected).min(min, expected).max(max, expected);
};

const ConfigSchema = z.object({
  host: z.string().min(1, 'a listen address'),
  port: intIn(0, 65_535),
  clickhouseUrl: z.url(),
  clickhouseUser: z.string().min(1, 'a ClickHouse user name'),
  clickhousePassword: z.string(),
  database: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a ClickHouse identifier'),
  prometheusUrl: z.url(),
  revenueSource: z.enum(['clean', 'windows'], 'clean or windows'),
  refreshMs: intIn(1_000, 3_600_000),
  queryTimeoutMs: intIn(100, 120_000),
  logLevel: z.enum(
    ['trace', 'debug', 'info', 'warn', 'error', 'fatal'],
    'one of trace, debug, info, warn, error, fatal',
  ),
});

export type DashboardConfig = z.infer<typeof ConfigSchema>;

const OPTIONS = {
  host: {
    flag: '--host',
    env: 'DASHBOARD_HOST',
    default: '127.0.0.1',
    help: 'listen address of the page, the JSON API, /metrics and /healthz',
  },
  port: {
    flag: '--port',
    env: 'DASHBOARD_PORT',
    default: '9410',
    help: 'listen port (0 = any free port)',
  },
  clickhouseUrl: {
    flag: '--clickhouse-url',
    env: 'CLICKHOUSE_URL',
    default: 'http://127.0.0.1:18123',
    help: 'ClickHouse HTTP URL',
  },
  clickhouseUser: {
    flag: '--clickhouse-user',
    env: 'DASHBOARD_CLICKHOUSE_USER',
    default: 'dashboard',
    help: 'ClickHouse user: the read-only `dashboard` user of infra/clickhouse/config/users.xml',
  },
  clickhousePassword: {
    flag: '--clickhouse-password',
    env: 'DASHBOARD_CLICKHOUSE_PASSWORD',
    default: 'dashboard-local',
    help: "its password (the local stack's)",
  },
  database: {
    flag: '--database',
    env: 'DASHBOARD_DATABASE',
    default: DEFAULT_DATABASE,
    help: 'ClickHouse database of the event tables',
  },
  prometheusUrl: {
    flag: '--prometheus-url',
    env: 'PROMETHEUS_URL',
    default: 'http://127.0.0.1:9090',
    help: 'Prometheus HTTP API (freshness and throughput per layer)',
  },
  revenueSource: {
    flag: '--revenue-source',
    env: 'DASHBOARD_REVENUE_SOURCE',
    default: 'windows',
    help: 'revenue per minute from the window aggregates table agg_windows (windows: exact, on-time events only) or from the clean events (clean: late events included)',
  },
  refreshMs: {
    flag: '--refresh-ms',
    env: 'DASHBOARD_REFRESH_MS',
    default: '5000',
    help: 'how often the page refreshes itself, ms',
  },
  queryTimeoutMs: {
    flag: '--query-timeout-ms',
    env: 'DASHBOARD_QUERY_TIMEOUT_MS',
    default: '10000',
    help: 'timeout of one ClickHouse or Prometheus request, ms',
  },
  logLevel: { flag: '--log-level', env: 'LOG_LEVEL', default: 'info', help: 'pino level' },
} as const satisfies OptionTable;

const HEADER = `usage: dashboard [options]

Serves the clickstream dashboard (one page + JSON API under /api/) over ClickHouse (read-only user)
and Prometheus, with /metrics and /healthz on the same port.
`;

export function usage(): string {
  return formatUsage(OPTIONS, HEADER);
}

export type ParsedArgs = { help: true } | { help: false; config: DashboardConfig };

/** Flags win over environment, environment over defaults; the first invalid value throws a ConfigError. */
export function parseConfig(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): ParsedArgs {
  const parsed = parseOptions(OPTIONS, ConfigSchema, argv, env, { header: HEADER });
  if (parsed.help) return { help: true };
  return { help: false, config: parsed.config };
}

/** The real process's configuration; the only reader of process.env in the dashboard. */
export function loadConfig(argv: readonly string[] = process.argv.slice(2)): ParsedArgs {
  return parseConfig(argv, process.env);
}
