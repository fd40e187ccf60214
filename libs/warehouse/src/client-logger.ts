/** Routes @clickhouse/client's own log lines into the injected logger (the client wants a class, so one is made per logger). */
import type { Logger as ClientLogger } from '@clickhouse/client';
import type { Logger } from './types';

interface LogParams {
  module: string;
  message: string;
  args?: Record<string, unknown>;
  err?: Error;
}

export function adaptLogger(logger: Logger): new () => ClientLogger {
  const fields = (p: LogParams): object => ({
    module: p.module,
    ...(p.args ?? {}),
    ...(p.err ? { err: p.err.message } : {}),
  });
  return class implements ClientLogger {
    trace(p: LogParams): void {
      logger.debug(fields(p), p.message);
    }
    debug(p: LogParams): void {
      logger.debug(fields(p), p.message);
    }
    info(p: LogParams): void {
      logger.debug(fields(p), p.message);
    }
    // The client logs every failed request as an error; callers see the rejection and decide
    // (retry or fail), so here it is only a warning.
    warn(p: LogParams): void {
      logger.warn(fields(p), p.message);
    }
    error(p: LogParams): void {
      logger.warn(fields(p), p.message);
    }
  };
}
