/** Loader configuration: parsed once from flags and environment (flags win), failing fast with the key, the value and what was expected. */
import { z } from 'zod';
import { DDL_DIR, DEFAULT_DATABASE, TABLE_ROLES, type TableRole } from '@clickstream/warehouse';

/** "valid=events.valid,clean=events.clean,dlq=events.dlq": which topic feeds which table; a role left out is not loaded. */
const TopicsSchema = z.string().transform((text, ctx) => {
  const map = new Map<TableRole, string>();
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [role, topic] = part.split('=').map((s) => s.trim());
    if (
      !role ||
      !topic ||
      !(TABLE_ROLES as readonly string[]).includes(role) ||
      map.has(role as TableRole)
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `expected role=topic pairs with roles from ${TABLE_ROLES.join('|')}, each once; bad part ${JSON.stringify(part)}`,
      });
      return z.NEVER;
    }
    map.set(role as TableRole, topic);
  }
  if (map.size === 0) {
    ctx.addIssue({ code: 'custom', message: 'expected at least one role=topic pair' });
    return z.NEVER;
  }
  return map;
});

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const ConfigSchema = z.object({
  bootstrap: z.string().min(1),
  clickhouseUrl: z.url(),
  database: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a plain identifier'),
  groupId: z.string().min(1),
  clientId: z.string().min(1),
  topics: TopicsSchema,
  flushMs: int(10, 60_000),
  flushRows: int(1, 1_000_000),
  maxAttempts: int(1, 1000),
  requestTimeoutMs: int(100, 600_000),
  lagIntervalMs: int(0, 3_600_000),
  metricsPort: int(0, 65_535),
  ddlDir: z.string().min(1),
  migrate: z.enum(['true', 'false']).transform((v) => v === 'true'),
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal']),
  /** Fault injection seam for tests: crash (SIGKILL self) right after the Nth batch is inserted, before its offsets are committed. */
  fault: z.enum(['none', 'crash-after-insert']),
  faultAfterBatches: int(1, 1_000_000),
});
export type LoaderConfig = z.infer<typeof ConfigSchema>;

const FLAGS: Record<string, keyof LoaderConfig> = {
  '--bootstrap': 'bootstrap',
  '--clickhouse-url': 'clickhouseUrl',
  '--database': 'database',
  '--group': 'groupId',
  '--client-id': 'clientId',
  '--topics': 'topics',
  '--flush-ms': 'flushMs',
  '--flush-rows': 'flushRows',
  '--max-attempts': 'maxAttempts',
  '--request-timeout-ms': 'requestTimeoutMs',
  '--lag-interval-ms': 'lagIntervalMs',
  '--metrics-port': 'metricsPort',
  '--ddl-dir': 'ddlDir',
  '--log-level': 'logLevel',
  '--fault': 'fault',
  '--fault-after-batches': 'faultAfterBatches',
};

export const USAGE =
  'usage: loader [--migrate] [--bootstrap HOSTS] [--clickhouse-url URL] [--database NAME] [--group ID] [--client-id ID]\n' +
  '              [--topics valid=T,clean=T,dlq=T] [--flush-ms N] [--flush-rows N] [--max-attempts N]\n' +
  '              [--request-timeout-ms N] [--lag-interval-ms N (0 = off)] [--metrics-port N (0 = any free port)]\n' +
  '              [--ddl-dir DIR] [--log-level LEVEL] [--fault none|crash-after-insert --fault-after-batches N]';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function parseConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): LoaderConfig {
  const raw: Record<string, string | undefined> = {
    bootstrap: env.KAFKA_BOOTSTRAP ?? '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    clickhouseUrl: env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123',
    database: env.LOADER_DATABASE ?? DEFAULT_DATABASE,
    groupId: env.LOADER_GROUP ?? 'clickstream-loader',
    clientId: env.LOADER_CLIENT_ID ?? 'loader',
    topics: env.LOADER_TOPICS ?? 'valid=events.valid,clean=events.clean,dlq=events.dlq',
    // Freshness target: p99 < 3 s in events_valid, so a batch waits at most 250 ms.
    flushMs: env.LOADER_FLUSH_MS ?? '250',
    flushRows: env.LOADER_FLUSH_ROWS ?? '5000',
    // kafka-tx backs off 200 ms doubling to 5 s: 30 attempts ride out ~2 minutes of ClickHouse outage.
    maxAttempts: env.LOADER_MAX_ATTEMPTS ?? '30',
    requestTimeoutMs: env.LOADER_REQUEST_TIMEOUT_MS ?? '10000',
    lagIntervalMs: env.LOADER_LAG_INTERVAL_MS ?? '10000',
    metricsPort: env.LOADER_METRICS_PORT ?? '9402',
    ddlDir: env.LOADER_DDL_DIR ?? DDL_DIR,
    migrate: 'false',
    logLevel: env.LOG_LEVEL ?? 'info',
    fault: 'none',
    faultAfterBatches: '1',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    if (flag === '--migrate') {
      raw.migrate = 'true';
      continue;
    }
    const eq = flag.indexOf('=');
    const name = eq > 0 ? flag.slice(0, eq) : flag;
    const key = FLAGS[name];
    if (!key) throw new ConfigError(`unknown flag ${JSON.stringify(flag)}\n${USAGE}`);
    const value = eq > 0 ? flag.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new ConfigError(`flag ${name} needs a value\n${USAGE}`);
    raw[key] = value;
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '?');
    throw new ConfigError(
      `invalid ${key}=${JSON.stringify(raw[key])}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}
