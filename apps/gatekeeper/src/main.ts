/** Entry point of the gatekeeper process: parse config, build logger and clients, call run(), handle SIGTERM. */

import pino from 'pino';
import { endOffsets, lagReader, pendingTxCalls, runTransactionalLoop } from '@clickstream/kafka-tx';
import { configOrExit } from '@clickstream/cli-config';
import { loadConfig, usage } from './config';
import { createMetrics } from './metrics';
import { run } from './run';

/** Exit codes: 0 stopped on request, 1 failure, 2 bad configuration, 3 fenced by a newer instance (a hung transaction: SIGKILL of itself, see onStuck). */
const EXIT = { ok: 0, failure: 1, config: 2, fenced: 3 } as const;

/**
 * Exits. With a librdkafka transactional call still in flight, process.exit would hang for ever
 * joining that call's libuv worker (librdkafka 2.15.1, see libs/kafka-tx/README.md), so the
 * process kills itself instead; the open transaction is aborted by its coordinator or fenced by the
 * next instance either way.
 */
function leave(code: number): void {
  if (pendingTxCalls() > 0) process.kill(process.pid, 'SIGKILL');
  process.exit(code);
}

async function main(): Promise<number> {
  const start = configOrExit('gatekeeper', loadConfig, usage, { hint: ' (see --help)' });
  if ('exit' in start) return start.exit;
  const { config } = start;
  const logger = pino({
    level: config.logLevel,
    base: { app: 'gatekeeper', instanceId: config.instanceId, pid: process.pid },
  });

  const controller = new AbortController();
  const stop = (signalName: string) => {
    if (controller.signal.aborted) return;
    logger.info({ signal: signalName }, 'stopping: ending the open transaction');
    controller.abort();
    // Ending the transaction needs the cluster; if it is unreachable, leaving is still safe (the
    // coordinator aborts it), so do not hang a supervisor forever.
    setTimeout(() => {
      logger.error(
        { graceMs: config.shutdownGraceMs },
        'open transaction did not end in time; exiting',
      );
      leave(EXIT.failure);
    }, config.shutdownGraceMs).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  try {
    const result = await run({
      config,
      logger,
      kafka: { runTransactionalLoop, lagReader, endOffsets },
      metrics: createMetrics(),
      signal: controller.signal,
      onStuck: (inFlightMs) => {
        // Nothing in-process can cancel a hung librdkafka call; a restarted process fences the stuck
        // transaction. process.exit() would block ~10 s in the native teardown of the hung client
        // (measured), so the process kills itself: a supervisor restarts it in about a second.
        logger.fatal(
          { inFlightMs, stallExitMs: config.stallExitMs },
          'transaction stuck; killing this process so that a restart fences it',
        );
        process.kill(process.pid, 'SIGKILL');
      },
    });
    return result.reason === 'fenced' ? EXIT.fenced : EXIT.ok;
  } catch (error) {
    logger.fatal({ err: error }, 'gatekeeper failed');
    return EXIT.failure;
  }
}

main().then(
  (code) => {
    // Let pino flush, then leave even if a library keeps a handle open.
    process.exitCode = code;
    setTimeout(() => leave(code), 200).unref();
  },
  (error: unknown) => {
    process.stderr.write(`gatekeeper: ${String(error)}\n`);
    process.exit(EXIT.failure);
  },
);
