/** Retrying one transactional producer call, and the classified errors that end a retry (fenced, fatal, stuck, stopped). */
import { backoffMs } from './batch';
import { RD_CODES, classifyTxError, describeError, errorCode } from './errors';
import type { Clock } from './ports';
import type { Logger } from './types';

/** Raised for a fatal, non-fencing producer error: the producer is unusable and the caller must restart. */
export class FatalKafkaError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
  ) {
    super(message);
    this.name = 'FatalKafkaError';
  }
}

/** A newer instance with the same transactional id took over. */
export class Fenced extends Error {}

/** The producer is stuck on its coordinator and must be replaced by a fresh one. */
export class Abandon extends Error {
  constructor(
    readonly op: string,
    readonly reason: unknown,
  ) {
    super(`${op}: ${describeError(reason).message}`);
  }
}

/** A retry loop gave up because the caller asked to stop (only where giving up cannot commit anything). */
export class StoppedWhileRetrying extends Error {}

/** Codes that mean the request did not get an answer (dead or unreachable coordinator). */
const NO_ANSWER = new Set<number>([
  RD_CODES.ERR__TRANSPORT,
  RD_CODES.ERR__TIMED_OUT,
  RD_CODES.ERR__TIMED_OUT_QUEUE,
  RD_CODES.ERR__ALL_BROKERS_DOWN,
  RD_CODES.ERR__MSG_TIMED_OUT,
]);

/** Calls whose failure towards the coordinator abandons the producer (when it can be replaced). */
const ABANDONING_OPS = new Set(['sendOffsets', 'commit', 'abort']);

export interface RetryContext {
  clock: Clock;
  logger: Logger;
  /** True once the caller asked to stop. */
  stopped(): boolean;
  /** A stuck producer can be replaced by a fresh one (TxEngineDeps.openProducer is given). */
  canReplace: boolean;
}

/**
 * Runs op, retrying while its error is retriable; fenced / fatal / abortable errors are thrown
 * classified. Unbounded retries (budgetMs null: init, begin, abort) give up when the caller
 * stops, so that a stop cannot hang on an unavailable cluster; none of them can commit anything.
 */
export async function withRetry(
  ctx: RetryContext,
  name: string,
  op: () => Promise<void>,
  budgetMs: number | null,
): Promise<void> {
  const start = ctx.clock.now();
  for (let attempt = 1; ; attempt++) {
    try {
      await op();
      return;
    } catch (e) {
      const cls = classifyTxError(e);
      if (cls === 'fenced') throw new Fenced();
      if (cls === 'fatal')
        throw new FatalKafkaError(`${name}: ${describeError(e).message}`, describeError(e).code);
      const overBudget = budgetMs !== null && ctx.clock.now() - start >= budgetMs;
      if (ctx.canReplace && ABANDONING_OPS.has(name)) {
        const code = errorCode(e);
        const noAnswer = code !== null && NO_ANSWER.has(code);
        // After a failed commit librdkafka refuses abort with "invalid state": replace instead.
        const badState = name === 'abort' && code === RD_CODES.ERR__STATE;
        if (noAnswer || overBudget || badState) throw new Abandon(name, e);
      }
      if (cls === 'abortable' || overBudget) throw e;
      if (budgetMs === null && ctx.stopped()) throw new StoppedWhileRetrying(name);
      ctx.logger.warn(
        { op: name, attempt, err: describeError(e) },
        'retriable transaction error; retrying',
      );
      await ctx.clock.sleep(backoffMs(attempt));
    }
  }
}

/** Calls a caller's hook; a hook that throws is logged, never allowed to break the transaction. */
export function safeHook(log: Logger, name: string, f: () => void): void {
  try {
    f();
  } catch (e) {
    log.warn({ hook: name, err: describeError(e) }, 'hook threw');
  }
}
