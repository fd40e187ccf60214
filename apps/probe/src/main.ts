/** Probe entry point: parse config, build logger, producer, warehouse and metrics, call run(), stop on SIGTERM. */

import pino from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { createIdempotentProducer } from '@clickstream/kafka-tx';
import { startStatusServer } from '@clickstream/status-server';
import { createWarehouse } from '@clickstream/warehouse';
import { configOrExit } from '@clickstream/cli-config';
import { loadConfig, usage } from './config';
import { probeRunId } from './event';
import { httpFrontDoor } from './http-front-door';
import { createMetrics } from './metrics';
import { run } from './run';
import { ProbeTracker } from './tracker';

/** Exit codes (also in README.md): 0 stopped on request or --help, 1 failure, 2 bad configuration. */
const EXIT = { ok: 0, failure: 1, config: 2 } as const;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

async function main(): Promise<number> {
  const start = configOrExit('probe', loadConfig, usage);
  if ('exit' in start) return start.exit;
  const { config } = start;
  const startedAt = Date.now();
  const runId = probeRunId(config.runId, startedAt);
  const logger = pino({ level: config.logLevel, base: { app: 'probe', runId, pid: process.pid } });

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = createMetrics(registry);
  const tracker = new ProbeTracker({
    layers: config.layers,
    sloThresholdMs: config.sloThresholdMs,
    forgetAfterMs: config.forgetAfterMs,
    startedAt,
    hooks: metrics.hooks,
  });
  metrics.attach(tracker, Date.now);

  const stop = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const)
    process.once(sig, () => {
      logger.info({ signal: sig }, 'stopping');
      stop.abort();
    });

  // The metrics server comes first: the age gauge must be scrapeable even while Kafka is unreachable.
  const server = await startStatusServer({
    host: config.metricsHost,
    port: config.metricsPort,
    metrics: registry,
    health: () => ({ status: 200, body: { ok: true, runId } }),
  });
  logger.info({ port: server.port }, 'metrics server listening');
  const warehouse = createWarehouse({
    url: config.clickhouseUrl,
    database: config.database,
    logger: logger.child({ module: 'warehouse' }),
    // A poll must not hang longer than a few polls: the next one asks again.
    requestTimeoutMs: 5000,
  });
  const producer = await createIdempotentProducer({
    bootstrap: config.bootstrap,
    clientId: `probe-${runId}`,
    logger: logger.child({ module: 'kafka' }),
  });
  try {
    await run({
      config,
      runId,
      logger,
      frontDoors: [
        { name: 'kafka', send: (records) => producer.send(records) },
        ...(config.collectorUrl === ''
          ? []
          : [{ name: 'http', ...httpFrontDoor(config.collectorUrl) }]),
      ],
      warehouse,
      tracker,
      metrics,
      clock: Date.now,
      random: Math.random,
      sleep,
      signal: stop.signal,
    });
  } finally {
    await producer.flush(5000).catch(() => undefined);
    await producer.close();
    await warehouse.close();
    await server.close();
  }
  return EXIT.ok;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`probe: fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(EXIT.failure);
  },
);
