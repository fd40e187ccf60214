/** Probe entry point: wires config, logger and metrics server, runs until SIGTERM. */

import pino from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { ConfigError, parseConfig } from './config';
import { run } from './run';
import { startStatusServer } from '@clickstream/status-server';

async function main(): Promise<void> {
  let config;
  try {
    config = parseConfig(process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`probe: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = pino({ name: 'probe', level: config.logLevel });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const server = await startStatusServer({
    host: '127.0.0.1',
    port: config.metricsPort,
    metrics: registry,
    health: () => ({ status: 200, body: { ok: true } }),
  });
  const stop = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => stop.abort());
  await run({ config, logger, registry, signal: stop.signal });
  await server.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`probe: fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
