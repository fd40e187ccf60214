/** Loader configuration: parsed once from flags and environment (flags win), failing fast with the key, the value and what was expected. */
import { z } from 'zod';
import {
  ConfigError,
  existingDirectory,
  hostPortList,
  identifier,
  intIn,
  logLevel,
  parseOptions,
  usage as formatUsage,
  type OptionTable,
} from '@clickstream/cli-config';
import {
  BACKFILL_DIR,
  DDL_DIR,
  DEFAULT_DATABASE,
  TABLE_ROLES,
  type TableRole,
} from '@clickstream/warehouse';

const isTableRole = (s: string): s is TableRole => (TABLE_ROLES as readonly string[]).includes(s);

/** "valid=events.valid,clean=events.clean,...": which topic feeds which table; a role left out is not loaded. */
const TopicsSchema = z.string().transform((text, ctx) => {
  const map = new Map<TableRole, string>();
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [role, topic] = part.split('=').map((s) => s.trim());
    if (!role || !topic || !isTableRole(role) || map.has(role)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected role=topic pairs with roles from ${TABLE_ROLES.join('|')}, each once; bad part ${JSON.stringify(part)}`,
      });
      return z.NEVER;
    }
    map.set(role, topic);
  }
  if (map.size === 0) {
    ctx.addIssue({ code: 'custom', message: 'expected at least one role=topic pair' });
    return z.NEVER;
  }
  return map;
});

const ConfigSchema = z.object({
  bootstrap: hostPortList,
  clickhouseUrl: z.url(),
  database: identifier,
  groupId: z.string().min(1),
  clientId: z.string().min(1),
  topics: TopicsSchema,
  flushMs: intIn(10, 60_000),
  flushRows: intIn(1, 1_000_000),
  slowRoles: z.string().transform((text, ctx) => {
    const roles = text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '' && s !== 'none');
    const bad = roles.filter((r) => !isTableRole(r));
    if (bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `roles from ${TABLE_ROLES.join('|')} (or none); bad ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
      });
      return z.NEVER;
    }
    return new Set(roles.filter(isTableRole));
  }),
  slowFlushMs: intIn(10, 600_000),
  maxAttempts: intIn(1, 1000),
  requestTimeoutMs: intIn(100, 600_000),
  lagIntervalMs: intIn(0, 3_600_000),
  metricsPort: intIn(0, 65_535),
  // Read at every start: a wrong path fails here, not in the retried migrate.
  ddlDir: existingDirectory,
  backfillDir: existingDirectory,
  migrate: z.enum(['true', 'false'], 'true or false').transform((v) => v === 'true'),
  logLevel,
  /** Fault injection seam for tests: crash (SIGKILL self) right after the Nth batch is inserted, before its offsets are committed. */
  fault: z.enum(['none', 'crash-after-insert'], 'none or crash-after-insert'),
  faultAfterBatches: intIn(1, 1_000_000),
});
export type LoaderConfig = z.infer<typeof ConfigSchema>;

export { ConfigError };

const OPTIONS = {
  bootstrap: {
    flag: '--bootstrap',
    env: 'KAFKA_BOOTSTRAP',
    default: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    help: 'Kafka bootstrap servers, host:port[,host:port...]',
  },
  clickhouseUrl: {
    flag: '--clickhouse-url',
    env: 'CLICKHOUSE_URL',
    default: 'http://127.0.0.1:18123',
    help: 'ClickHouse HTTP URL',
  },
  database: {
    flag: '--database',
    env: 'LOADER_DATABASE',
    default: DEFAULT_DATABASE,
    help: 'ClickHouse database',
  },
  groupId: {
    flag: '--group',
    env: 'LOADER_GROUP',
    default: 'clickstream-loader',
    help: 'consumer group',
  },
  clientId: { flag: '--client-id', env: 'LOADER_CLIENT_ID', default: 'loader', help: 'client id' },
  topics: {
    flag: '--topics',
    env: 'LOADER_TOPICS',
    default:
      'valid=events.valid,clean=events.clean,dlq=events.dlq,late=events.late,windows=agg.windows,sessions=agg.sessions',
    help: `role=topic pairs, roles from ${TABLE_ROLES.join(', ')}; a role left out is not loaded`,
  },
  // Freshness target: p99 < 3 s in events_valid, so a batch waits at most 250 ms.
  flushMs: {
    flag: '--flush-ms',
    env: 'LOADER_FLUSH_MS',
    default: '250',
    help: 'flush interval, ms',
  },
  flushRows: {
    flag: '--flush-rows',
    env: 'LOADER_FLUSH_ROWS',
    default: '5000',
    help: 'rows per flush',
  },
  // ClickHouse rewrites a small table's newest part at nearly every insert (docs/CLICKHOUSE.md,
  // "The slow lane"): the tables no freshness goal reads get a consumer (same group) and a longer flush.
  slowRoles: {
    flag: '--slow-roles',
    env: 'LOADER_SLOW_ROLES',
    default: 'dlq,late,sessions',
    help: 'roles loaded by the slow lane (a second consumer of the group, flushing every --slow-flush-ms); none = one lane',
  },
  slowFlushMs: {
    flag: '--slow-flush-ms',
    env: 'LOADER_SLOW_FLUSH_MS',
    default: '5000',
    help: "the slow lane's flush interval, ms",
  },
  // kafka-tx backs off 200 ms doubling to 5 s: 30 attempts ride out ~2 minutes of ClickHouse outage.
  maxAttempts: {
    flag: '--max-attempts',
    env: 'LOADER_MAX_ATTEMPTS',
    default: '30',
    help: 'insert attempts',
  },
  requestTimeoutMs: {
    flag: '--request-timeout-ms',
    env: 'LOADER_REQUEST_TIMEOUT_MS',
    default: '10000',
    help: 'ClickHouse request timeout, ms',
  },
  lagIntervalMs: {
    flag: '--lag-interval-ms',
    env: 'LOADER_LAG_INTERVAL_MS',
    default: '10000',
    help: 'lag gauge interval, ms (0 = off)',
  },
  metricsPort: {
    flag: '--metrics-port',
    env: 'LOADER_METRICS_PORT',
    default: '9402',
    help: 'metrics port (0 = any free port)',
  },
  ddlDir: { flag: '--ddl-dir', env: 'LOADER_DDL_DIR', default: DDL_DIR, help: 'DDL directory' },
  backfillDir: {
    flag: '--backfill-dir',
    env: 'LOADER_BACKFILL_DIR',
    default: BACKFILL_DIR,
    help: 'one-off fills of empty view targets, run after the DDL',
  },
  migrate: { flag: '--migrate', default: 'false', boolean: true, help: 'apply the DDL and exit' },
  logLevel: {
    flag: '--log-level',
    env: 'LOG_LEVEL',
    default: 'info',
    help: 'pino level: fatal, error, warn, info, debug, trace, silent',
  },
  fault: {
    flag: '--fault',
    default: 'none',
    help: 'fault to inject (tests): none or crash-after-insert',
  },
  faultAfterBatches: {
    flag: '--fault-after-batches',
    default: '1',
    help: 'batches inserted before the fault',
  },
} as const satisfies OptionTable;

export type ParsedArgs = { help: true } | { help: false; config: LoaderConfig };

const HEADER = `Usage: node apps/loader/dist/main.js [options]

Every option with a variable can also be set by it; flags win.
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
  });
  if (parsed.help) return { help: true };
  return { help: false, config: parsed.config };
}

/** The real process's configuration; the only reader of process.env in the loader. */
export function loadConfig(argv: readonly string[] = process.argv.slice(2)): ParsedArgs {
  return parseConfig(argv, process.env);
}
