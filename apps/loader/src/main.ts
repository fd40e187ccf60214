/** Loader entry point: wires config, logger, metrics, ClickHouse and Kafka, runs until SIGTERM (which flushes, commits and exits 0). */
import pino from 'pino';
import { lagReader, runAtLeastOnceConsumer } from '@clickstream/kafka-tx';
import { createWarehouse } from '@clickstream/warehouse';
import { configOrExit } from '@clickstream/cli-config';
import { loadConfig, usage } from './config';
import { newHealth } from './health';
import { createMetrics } from './metrics';
import { migrate, run } from './run';
import { startStatusServer } from '@clickstream/status-server';
import { isHealthy } from './health';

/** Exit codes (README): 0 stopped on SIGTERM/SIGINT after flushing and committing, or --help, or --migrate done; 1 failure; 2 bad configuration. A fault-injection crash is the loader's own SIGKILL. */
const EXIT = { ok: 0, failure: 1, config: 2 } as const;

async function main(): Promise<number> {
  const start = configOrExit('loader', loadConfig, usage, { hint: ' (see --help)' });
  if ('exit' in start) return start.exit;
  const { config } = start;
  const logger = pino({ name: 'loader', level: config.logLevel });
  const stop = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      logger.info({ signal: sig }, 'stopping: flushing the open batch');
      stop.abort();
    });
  }
  const warehouse = createWarehouse({
    url: config.clickhouseUrl,
    database: config.database,
    logger: logger.child({ module: 'warehouse' }),
    requestTimeoutMs: config.requestTimeoutMs,
  });
  try {
    if (config.migrate) {
      const files = await migrate({ config, logger, warehouse, signal: stop.signal });
      logger.info({ database: config.database, files }, 'ddl applied');
      return EXIT.ok;
    }
    const metrics = createMetrics();
    const health = newHealth();
    const server = await startStatusServer({
      host: '127.0.0.1',
      port: config.metricsPort,
      metrics: metrics.registry,
      health: () => {
        const ok = isHealthy(health);
        return { status: ok ? 200 : 503, body: { ok, ...health } };
      },
    });
    logger.info({ port: server.port }, 'metrics listening');
    const kafka = {
      bootstrap: config.bootstrap,
      clientId: config.clientId,
      logger: logger.child({ module: 'kafka' }),
    };
    const lag = lagReader(kafka, config.groupId);
    try {
      await run({
        config,
        logger,
        kafka,
        warehouse,
        metrics,
        health,
        signal: stop.signal,
        consume: runAtLeastOnceConsumer,
        lagOf: (topic) => lag.lag(topic),
        crash: () => process.kill(process.pid, 'SIGKILL'),
      });
    } finally {
      await lag.close();
      await server.close();
    }
    logger.info({}, 'stopped');
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`loader: fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(EXIT.failure);
  },
);
