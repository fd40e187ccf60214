/** Collector entry point: parse config, build logger, producer, metrics and servers, stop on SIGTERM. */

import pino from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { createIdempotentProducer } from '@clickstream/kafka-tx';
import { startStatusServer } from '@clickstream/status-server';
import { configOrExit } from '@clickstream/cli-config';
import { loadConfig, usage } from './config';
import { Ingestor } from './ingest';
import { createMetrics } from './metrics';
import { startCollectorServer } from './server';

/** Exit codes (also in README.md). */
const EXIT = { ok: 0, failure: 1, config: 2 } as const;

async function main(): Promise<number> {
  const start = configOrExit('collector', loadConfig, usage);
  if ('exit' in start) return start.exit;
  const { config } = start;
  const logger = pino({ level: config.logLevel, base: { app: 'collector', pid: process.pid } });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = createMetrics(registry);

  const producer = await createIdempotentProducer({
    bootstrap: config.bootstrap,
    clientId: `collector-${process.pid}`,
    // Every HTTP response waits for its events' acks, so a batch's wait is on each request's
    // latency: 5 ms, not the bulk producers' 50 (docs/KAFKA.md, "Producers' linger").
    lingerMs: 5,
    logger: logger.child({ module: 'kafka' }),
  });
  const ingestor = new Ingestor({
    producer,
    topic: config.topic,
    maxInFlightEvents: config.maxInFlightEvents,
    ackTimeoutMs: config.ackTimeoutMs,
    hooks: metrics.ingest,
  });
  metrics.attach(() => ingestor.inFlightEvents);
  const status = await startStatusServer({
    host: config.metricsHost,
    port: config.metricsPort,
    metrics: registry,
    health: () => ({ status: 200, body: { ok: true, inFlightEvents: ingestor.inFlightEvents } }),
  });
  const server = await startCollectorServer({
    host: config.host,
    port: config.port,
    ingestor,
    limits: config,
    corsOrigins: config.corsOrigins,
    retryAfterSeconds: config.retryAfterSeconds,
    logger: logger.child({ module: 'http' }),
    hooks: metrics.requests,
  });
  logger.info(
    { port: server.port, metricsPort: status.port, topic: config.topic },
    'collector listening',
  );

  await new Promise<void>((resolve) => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const)
      process.once(sig, () => {
        logger.info({ signal: sig }, 'stopping: no new requests; answering those in flight');
        resolve();
      });
  });
  // Requests already received are answered (each waits at most --ack-timeout-ms) before Kafka closes.
  await server.close();
  await producer.flush(config.ackTimeoutMs).catch(() => undefined);
  await producer.close();
  await status.close();
  return EXIT.ok;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`collector: fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(EXIT.failure);
  },
);
