/** The consume-transform-produce state machine, driven through LoopConsumer / TxProducer so it is testable without Kafka. */
import { backoffMs, nextOffsets, rewindOffsets } from './batch';
import { classifyTxError, describeError } from './errors';
import type { Clock, LoopConsumer, TxProducer } from './ports';
import type { InRecord, Logger, LoopHooks, LoopResult, OutRecord } from './types';

export interface TxEngineDeps {
  consumer: LoopConsumer;
  producer: TxProducer;
  transform(batch: InRecord[]): OutRecord[] | Promise<OutRecord[]>;
  maxBatchRecords: number;
  maxBatchMs: number;
  /** How long a commit may keep failing with retriable errors before the transaction is aborted instead. */
  commitRetryBudgetMs: number;
  hooks: LoopHooks;
  signal?: AbortSignal;
  logger: Logger;
  clock: Clock;
}

type TxOutcome =
  { kind: 'committed'; outputs: number } | { kind: 'aborted'; error: unknown } | { kind: 'fenced' };

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

class Fenced extends Error {}

/** A retry loop gave up because the caller asked to stop (only where giving up cannot commit anything). */
class StoppedWhileRetrying extends Error {}

function safeHook(log: Logger, name: string, f: () => void): void {
  try {
    f();
  } catch (e) {
    log.warn({ hook: name, err: describeError(e) }, 'hook threw');
  }
}

export async function runTxEngine(d: TxEngineDeps): Promise<LoopResult> {
  const log = d.logger;
  const stopped = (): boolean => d.signal?.aborted === true;

  const fenced = (): LoopResult => {
    log.warn({}, 'producer fenced by a newer instance; stopping');
    safeHook(log, 'onFenced', () => d.hooks.onFenced?.());
    return { reason: 'fenced' };
  };

  /**
   * Runs op, retrying while its error is retriable; fenced / fatal / abortable errors are thrown
   * classified. Unbounded retries (budgetMs null: init, begin, abort) give up when the caller
   * stops, so that a stop cannot hang on an unavailable cluster; none of them can commit anything.
   */
  async function withRetry(
    name: string,
    op: () => Promise<void>,
    budgetMs: number | null,
  ): Promise<void> {
    const start = d.clock.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await op();
        return;
      } catch (e) {
        const cls = classifyTxError(e);
        if (cls === 'fenced') throw new Fenced();
        if (cls === 'fatal')
          throw new FatalKafkaError(`${name}: ${describeError(e).message}`, describeError(e).code);
        const overBudget = budgetMs !== null && d.clock.now() - start >= budgetMs;
        if (cls === 'abortable' || overBudget) throw e;
        if (budgetMs === null && stopped()) throw new StoppedWhileRetrying(name);
        log.warn(
          { op: name, attempt, err: describeError(e) },
          'retriable transaction error; retrying',
        );
        await d.clock.sleep(backoffMs(attempt));
      }
    }
  }

  async function collect(): Promise<InRecord[]> {
    const batch: InRecord[] = [];
    let deadline: number | null = null;
    while (batch.length < d.maxBatchRecords && !stopped() && !d.consumer.rebalancePending()) {
      const wait = deadline === null ? d.maxBatchMs : deadline - d.clock.now();
      if (wait <= 0) break;
      const got = await d.consumer.consume(d.maxBatchRecords - batch.length, wait);
      if (got.length === 0) {
        if (deadline === null) break; // idle: let the caller look at signals and rebalances
        continue;
      }
      if (deadline === null) deadline = d.clock.now() + d.maxBatchMs;
      for (const r of got) batch.push(r);
    }
    return batch;
  }

  async function transact(batch: InRecord[]): Promise<TxOutcome> {
    const started = d.clock.now();
    let begun = false;
    try {
      const outputs = await d.transform(batch);
      await withRetry('begin', () => d.producer.begin(), null);
      begun = true;
      await d.producer.produce(outputs);
      await withRetry(
        'sendOffsets',
        () => d.producer.sendOffsets(nextOffsets(batch)),
        d.commitRetryBudgetMs,
      );
      await withRetry('commit', () => d.producer.commit(), d.commitRetryBudgetMs);
      safeHook(log, 'onCommit', () => d.hooks.onCommit?.(d.clock.now() - started, batch.length));
      return { kind: 'committed', outputs: outputs.length };
    } catch (e) {
      if (e instanceof Fenced) return { kind: 'fenced' };
      if (e instanceof FatalKafkaError || e instanceof StoppedWhileRetrying) throw e;
      const cls = classifyTxError(e);
      if (cls === 'fenced') return { kind: 'fenced' };
      if (cls === 'fatal')
        throw new FatalKafkaError(describeError(e).message, describeError(e).code);
      log.warn(
        { err: describeError(e), records: batch.length },
        'transaction failed; aborting and rewinding',
      );
      if (begun) {
        try {
          // Abort must eventually succeed before the next begin; keep retrying while it is retriable.
          await withRetry('abort', () => d.producer.abort(), null);
        } catch (abortError) {
          if (abortError instanceof Fenced) return { kind: 'fenced' };
          if (abortError instanceof FatalKafkaError || abortError instanceof StoppedWhileRetrying)
            throw abortError;
          throw new FatalKafkaError(
            `abort failed: ${describeError(abortError).message}`,
            describeError(abortError).code,
          );
        }
      }
      safeHook(log, 'onAbort', () => d.hooks.onAbort?.(e));
      return { kind: 'aborted', error: e };
    }
  }

  async function rewind(batch: InRecord[]): Promise<void> {
    const to = rewindOffsets(batch);
    for (let attempt = 1; ; attempt++) {
      try {
        await d.consumer.seek(to);
        return;
      } catch (e) {
        // Continuing without a rewind would skip the batch: give up loudly instead.
        if (attempt >= 5)
          throw new FatalKafkaError(
            `rewind failed: ${describeError(e).message}`,
            describeError(e).code,
          );
        log.warn({ attempt, err: describeError(e) }, 'rewind failed; retrying');
        await d.clock.sleep(backoffMs(attempt));
      }
    }
  }

  try {
    return await loop();
  } catch (e) {
    if (e instanceof Fenced) return fenced();
    if (e instanceof StoppedWhileRetrying) {
      // The open transaction, if any, is aborted by the coordinator (transaction timeout) or by
      // the next instance's initTransactions; nothing of it was committed.
      log.warn(
        { op: e.message },
        'stopped while retrying; open transaction left to the coordinator',
      );
      return { reason: 'stopped' };
    }
    throw e;
  }

  async function loop(): Promise<LoopResult> {
    await withRetry('initTransactions', () => d.producer.init(), null);
    log.info({}, 'transactional loop started');

    let failures = 0;
    while (!stopped()) {
      // Rebalances are applied only here, between transactions: no transaction spans a revocation.
      if (d.consumer.rebalancePending()) d.consumer.applyRebalances();
      const batch = await collect();
      if (batch.length === 0) continue;
      safeHook(log, 'onRecordsIn', () => d.hooks.onRecordsIn?.(batch.length));
      // A batch that is collected is finished even when a stop or a revocation is pending.
      const outcome = await transact(batch);
      if (outcome.kind === 'fenced') return fenced();
      if (outcome.kind === 'committed') {
        failures = 0;
        safeHook(log, 'onRecordsOut', () => d.hooks.onRecordsOut?.(outcome.outputs));
        continue;
      }
      failures++;
      await rewind(batch);
      await d.clock.sleep(backoffMs(failures, 200, 5000), d.signal);
    }
    if (d.consumer.rebalancePending()) d.consumer.applyRebalances();
    log.info({}, 'transactional loop stopped');
    return { reason: 'stopped' };
  }
}
