/** Pager entry point: parse config, build logger and metrics, serve Alertmanager's webhook until SIGTERM. */

import * as path from 'node:path';
import pino from 'pino';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { configOrExit } from '@clickstream/cli-config';
import { loadConfig, usage } from './config';
import { startPager } from './server';

/** Exit codes (also in README.md): 0 stopped on request or --help, 1 failure, 2 bad configuration. */
const EXIT = { ok: 0, failure: 1, config: 2 } as const;

async function main(): Promise<number> {
  const start = configOrExit('pager', loadConfig, usage, { hint: ' (see --help)' });
  if ('exit' in start) return start.exit;
  const { config } = start;
  const logger = pino({ level: config.logLevel, base: { app: 'pager', pid: process.pid } });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const pages = new Counter({
    name: 'pager_notifications_total',
    help: 'Alertmanager notifications recorded, by status and alert name',
    labelNames: ['status', 'alertname'],
    registers: [registry],
  });
  const pager = await startPager({
    host: config.host,
    port: config.port,
    pagesDir: path.resolve(config.pagesDir),
    logger,
    metrics: registry,
    health: () => ({ status: 200, body: { ok: true } }),
    clock: Date.now,
    onPage: (line) => {
      for (const a of line.alerts) pages.inc({ status: a.status, alertname: a.alertname });
    },
  });
  logger.info({ port: pager.port, file: pager.pagesFile }, 'pager listening');
  await new Promise<void>((resolve) => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolve());
  });
  await pager.close();
  return EXIT.ok;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`pager: fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(EXIT.failure);
  },
);
