/** The consume-transform-produce state machine, driven through LoopConsumer / TxProducer so it is testable without Kafka. */
import { backoffMs, nextOffsets, rewindOffsets } from './batch';
import { RD_CODES, classifyTxError, describeError, errorCode } from './errors';
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
  /**
   * Opens a fresh transactional producer with the same transactional id. When given, a
   * transport/timeout failure of sendOffsets/commit/abort (or a spent commit budget) abandons the
   * producer instead of retrying it: librdkafka keeps retrying a dead coordinator, while a fresh
   * producer looks the coordinator up again (and its initTransactions fences the old epoch).
   */
  openProducer?: () => Promise<TxProducer>;
  hooks: LoopHooks;
  signal?: AbortSignal;
  logger: Logger;
  clock: Clock;
}

type TxOutcome =
  | { kind: 'committed'; outputs: number }
  | { kind: 'aborted'; error: unknown }
  | { kind: 'replaced'; error: unknown }
  | { kind: 'fenced' };

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

/** The producer is stuck on its coordinator and must be replaced by a fresh one. */
class Abandon extends Error {
  constructor(
    readonly op: string,
    readonly reason: unknown,
  ) {
    super(`${op}: ${describeError(reason).message}`);
  }
}

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
  let producer = d.producer;
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
        if (d.openProducer !== undefined && ABANDONING_OPS.has(name)) {
          const code = errorCode(e);
          const noAnswer = code !== null && NO_ANSWER.has(code);
          // After a failed commit librdkafka refuses abort with "invalid state": replace instead.
          const badState = name === 'abort' && code === RD_CODES.ERR__STATE;
          if (noAnswer || overBudget || badState) throw new Abandon(name, e);
        }
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
      await withRetry('begin', () => producer.begin(), null);
      begun = true;
      await producer.produce(outputs);
      await withRetry(
        'sendOffsets',
        () => producer.sendOffsets(nextOffsets(batch)),
        d.commitRetryBudgetMs,
      );
      await withRetry('commit', () => producer.commit(), d.commitRetryBudgetMs);
      safeHook(log, 'onCommit', () => d.hooks.onCommit?.(d.clock.now() - started, batch.length));
      return { kind: 'committed', outputs: outputs.length };
    } catch (e) {
      if (e instanceof Fenced) return { kind: 'fenced' };
      if (e instanceof Abandon) return replaceProducer(e, batch);
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
          await withRetry('abort', () => producer.abort(), null);
        } catch (abortError) {
          if (abortError instanceof Fenced) return { kind: 'fenced' };
          if (abortError instanceof Abandon) return replaceProducer(abortError, batch);
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

  /**
   * Closes the stuck producer (bounded by its close), opens a fresh one and initialises it, which
   * fences the old epoch and makes the coordinator finish the old transaction (abort, or complete
   * a commit that reached it). Only then is the outcome known: the batch is rewound to the group's
   * committed offsets, which include this batch's exactly when its commit went through. A fencing
   * error here still means another instance took over: the caller stops.
   */
  async function replaceProducer(e: Abandon, batch: InRecord[]): Promise<TxOutcome> {
    const open = d.openProducer;
    if (open === undefined) throw e;
    log.warn(
      { op: e.op, err: describeError(e.reason), records: batch.length },
      'transaction stuck on its coordinator; replacing the producer',
    );
    await producer.close();
    for (let attempt = 1; ; attempt++) {
      try {
        producer = await open();
        break;
      } catch (openError) {
        if (stopped()) throw new StoppedWhileRetrying('open producer');
        log.warn({ attempt, err: describeError(openError) }, 'opening a producer failed; retrying');
        await d.clock.sleep(backoffMs(attempt));
      }
    }
    try {
      await withRetry('initTransactions', () => producer.init(), null);
    } catch (initError) {
      if (initError instanceof Fenced) return { kind: 'fenced' };
      throw initError;
    }
    log.info({ op: e.op }, 'fresh transactional producer ready');
    await rewind(batch, true);
    safeHook(log, 'onAbort', () => d.hooks.onAbort?.(e.reason));
    return { kind: 'replaced', error: e.reason };
  }

  async function rewind(batch: InRecord[], toCommitted = false): Promise<void> {
    const first = rewindOffsets(batch);
    for (let attempt = 1; ; attempt++) {
      try {
        let to = first;
        if (toCommitted) {
          const committed = await d.consumer.committed(first);
          // No committed offset: nothing of this partition was ever committed, so the batch's start.
          to = first.map((p) => {
            const c = committed.find((x) => x.topic === p.topic && x.partition === p.partition);
            return c !== undefined && c.offset >= 0 ? { ...p, offset: c.offset } : p;
          });
        }
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
    await withRetry('initTransactions', () => producer.init(), null);
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
      // A replaced producer has already rewound (to the committed offsets).
      if (outcome.kind === 'aborted') await rewind(batch);
      await d.clock.sleep(backoffMs(failures, 200, 5000), d.signal);
    }
    if (d.consumer.rebalancePending()) d.consumer.applyRebalances();
    log.info({}, 'transactional loop stopped');
    return { reason: 'stopped' };
  }
}
