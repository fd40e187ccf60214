/** Dashboard entry point: parse config, build logger, warehouse (read-only user) and metrics, serve until SIGTERM. */

import pino from 'pino';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { createWarehouse } from '@clickstream/warehouse';
import { configOrExit } from '@clickstream/cli-config';
import { loadConfig, usage } from './config';
import { startServer } from './server';

/** Exit codes: 0 stopped on request or --help, 1 failure, 2 bad configuration. */
const EXIT = { ok: 0, failure: 1, config: 2 } as const;

async function main(): Promise<number> {
  const start = configOrExit('dashboard', loadConfig, () => usage().trimEnd());
  if ('exit' in start) return start.exit;
  const { config } = start;
  const logger = pino({ name: 'dashboard', level: config.logLevel });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'dashboard_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['route', 'status'],
    registers: [registry],
  });
  const reads = new Histogram({
    name: 'dashboard_read_duration_seconds',
    help: 'Time to answer one API endpoint (ClickHouse or Prometheus reads), by endpoint and outcome',
    labelNames: ['endpoint', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const warehouse = createWarehouse({
    url: config.clickhouseUrl,
    database: config.database,
    username: config.clickhouseUser,
    password: config.clickhousePassword,
    logger: logger.child({ module: 'warehouse' }),
    requestTimeoutMs: config.queryTimeoutMs,
  });
  let lastRead = { ok: true, at: 0 };
  const server = await startServer(config.host, config.port, {
    api: {
      reader: warehouse,
      prometheusUrl: config.prometheusUrl,
      fetch: (url, init) => fetch(url, init),
      revenueSource: config.revenueSource,
      refreshMs: config.refreshMs,
      queryTimeoutMs: config.queryTimeoutMs,
      now: () => Date.now(),
      observe: (endpoint, seconds, ok) => {
        reads.observe({ endpoint, outcome: ok ? 'ok' : 'failed' }, seconds);
        if (endpoint !== 'layers') lastRead = { ok, at: Date.now() };
        if (!ok) logger.warn({ endpoint }, 'read failed');
      },
    },
    metrics: registry,
    // Unhealthy while the last ClickHouse read failed; healthy before the first one.
    health: () => ({
      status: lastRead.ok ? 200 : 503,
      body: { ok: lastRead.ok, lastReadAt: lastRead.at },
    }),
    onRequest: (route, status) => requests.inc({ route, status: String(status) }),
  });
  logger.info(
    {
      host: config.host,
      port: server.port,
      database: config.database,
      user: config.clickhouseUser,
    },
    'dashboard listening',
  );

  await new Promise<void>((resolve) => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolve());
  });
  await server.close();
  await warehouse.close();
  logger.info('dashboard stopped');
  return EXIT.ok;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`dashboard: fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(EXIT.failure);
  },
);
