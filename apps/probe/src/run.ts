/**
 * The probe's run loop. So far it only keeps a heartbeat metric; sending a synthetic event through
 * the front door and watching for it in ClickHouse is the freshness-SLO issue's work.
 */

import type { Logger } from 'pino';
import { Counter, Registry } from 'prom-client';
import type { ProbeConfig } from './config';

export interface ProbeDeps {
  config: ProbeConfig;
  logger: Logger;
  registry: Registry;
  signal: AbortSignal;
}

export async function run({ config, logger, registry, signal }: ProbeDeps): Promise<void> {
  const ticks = new Counter({ name: 'probe_ticks_total', help: 'Probe loop iterations', registers: [registry] });
  logger.info({ intervalMs: config.intervalMs }, 'probe started');
  while (!signal.aborted) {
    ticks.inc();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, config.intervalMs);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }
  logger.info('probe stopped');
}
