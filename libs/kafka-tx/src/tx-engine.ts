/** The consume-transform-produce state machine, driven through LoopConsumer / TxProducer so it is testable without Kafka. */
import { backoffMs, nextOffsets } from './batch';
import { classifyTxError, describeError } from './errors';
import type { Clock, LoopConsumer, TxProducer } from './ports';
import { collectBatch, rewindBatch } from './tx-consumer';
import {
  Abandon,
  FatalKafkaError,
  Fenced,
  StoppedWhileRetrying,
  safeHook,
  withRetry,
  type RetryContext,
} from './tx-retry';
import type { InRecord, Logger, LoopHooks, LoopResult, OutRecord } from './types';

export { FatalKafkaError } from './tx-retry';

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

export function runTxEngine(d: TxEngineDeps): Promise<LoopResult> {
  return new TxEngine(d).run();
}

/** One run of the loop; the producer is a field because a stuck one is replaced by a fresh one. */
class TxEngine {
  private producer: TxProducer;
  private readonly log: Logger;
  private readonly retry: RetryContext;

  constructor(private readonly d: TxEngineDeps) {
    this.producer = d.producer;
    this.log = d.logger;
    this.retry = {
      clock: d.clock,
      logger: d.logger,
      stopped: () => this.stopped(),
      canReplace: d.openProducer !== undefined,
    };
  }

  private stopped(): boolean {
    return this.d.signal?.aborted === true;
  }

  private fenced(): LoopResult {
    this.log.warn({}, 'producer fenced by a newer instance; stopping');
    safeHook(this.log, 'onFenced', () => this.d.hooks.onFenced?.());
    return { reason: 'fenced' };
  }

  async run(): Promise<LoopResult> {
    try {
      return await this.loop();
    } catch (e) {
      if (e instanceof Fenced) return this.fenced();
      if (e instanceof StoppedWhileRetrying) {
        // The open transaction, if any, is aborted by the coordinator (transaction timeout) or by
        // the next instance's initTransactions; nothing of it was committed.
        this.log.warn(
          { op: e.message },
          'stopped while retrying; open transaction left to the coordinator',
        );
        return { reason: 'stopped' };
      }
      throw e;
    }
  }

  private async loop(): Promise<LoopResult> {
    const d = this.d;
    await withRetry(this.retry, 'initTransactions', () => this.producer.init(), null);
    this.log.info({}, 'transactional loop started');

    let failures = 0;
    while (!this.stopped()) {
      // Rebalances are applied only here, between transactions: no transaction spans a revocation.
      if (d.consumer.rebalancePending()) d.consumer.applyRebalances();
      const batch = await collectBatch({ ...d, stopped: () => this.stopped() });
      if (batch.length === 0) continue;
      safeHook(this.log, 'onRecordsIn', () => d.hooks.onRecordsIn?.(batch.length));
      // A batch that is collected is finished even when a stop or a revocation is pending.
      const outcome = await this.transact(batch);
      if (outcome.kind === 'fenced') return this.fenced();
      if (outcome.kind === 'committed') {
        failures = 0;
        safeHook(this.log, 'onRecordsOut', () => d.hooks.onRecordsOut?.(outcome.outputs));
        continue;
      }
      failures++;
      // A replaced producer has already rewound (to the committed offsets).
      if (outcome.kind === 'aborted') await rewindBatch(d, batch);
      await d.clock.sleep(backoffMs(failures, 200, 5000), d.signal);
    }
    if (d.consumer.rebalancePending()) d.consumer.applyRebalances();
    this.log.info({}, 'transactional loop stopped');
    return { reason: 'stopped' };
  }

  /** transform, begin, produce, send the input offsets, commit: one batch, one transaction. */
  private async transact(batch: InRecord[]): Promise<TxOutcome> {
    const d = this.d;
    const started = d.clock.now();
    let begun = false;
    try {
      const outputs = await d.transform(batch);
      await withRetry(this.retry, 'begin', () => this.producer.begin(), null);
      begun = true;
      await this.producer.produce(outputs);
      await withRetry(
        this.retry,
        'sendOffsets',
        () => this.producer.sendOffsets(nextOffsets(batch)),
        d.commitRetryBudgetMs,
      );
      await withRetry(this.retry, 'commit', () => this.producer.commit(), d.commitRetryBudgetMs);
      safeHook(this.log, 'onCommit', () =>
        d.hooks.onCommit?.(d.clock.now() - started, batch.length),
      );
      return { kind: 'committed', outputs: outputs.length };
    } catch (e) {
      return this.failed(e, batch, begun);
    }
  }

  /** After a failed transaction: stop on fencing, replace a stuck producer, or abort and let the loop rewind. */
  private async failed(e: unknown, batch: InRecord[], begun: boolean): Promise<TxOutcome> {
    if (e instanceof Fenced) return { kind: 'fenced' };
    if (e instanceof Abandon) return this.replaceProducer(e, batch);
    if (e instanceof FatalKafkaError || e instanceof StoppedWhileRetrying) throw e;
    const cls = classifyTxError(e);
    if (cls === 'fenced') return { kind: 'fenced' };
    if (cls === 'fatal') throw new FatalKafkaError(describeError(e).message, describeError(e).code);
    this.log.warn(
      { err: describeError(e), records: batch.length },
      'transaction failed; aborting and rewinding',
    );
    if (begun) {
      try {
        // Abort must eventually succeed before the next begin; keep retrying while it is retriable.
        await withRetry(this.retry, 'abort', () => this.producer.abort(), null);
      } catch (abortError) {
        if (abortError instanceof Fenced) return { kind: 'fenced' };
        if (abortError instanceof Abandon) return this.replaceProducer(abortError, batch);
        if (abortError instanceof FatalKafkaError || abortError instanceof StoppedWhileRetrying)
          throw abortError;
        throw new FatalKafkaError(
          `abort failed: ${describeError(abortError).message}`,
          describeError(abortError).code,
        );
      }
    }
    safeHook(this.log, 'onAbort', () => this.d.hooks.onAbort?.(e));
    return { kind: 'aborted', error: e };
  }

  /**
   * Closes the stuck producer (bounded by its close), opens a fresh one and initialises it, which
   * fences the old epoch and makes the coordinator finish the old transaction (abort, or complete
   * a commit that reached it). Only then is the outcome known: the batch is rewound to the group's
   * committed offsets, which include this batch's exactly when its commit went through. A fencing
   * error here still means another instance took over: the caller stops.
   */
  private async replaceProducer(e: Abandon, batch: InRecord[]): Promise<TxOutcome> {
    const open = this.d.openProducer;
    if (open === undefined) throw e;
    this.log.warn(
      { op: e.op, err: describeError(e.reason), records: batch.length },
      'transaction stuck on its coordinator; replacing the producer',
    );
    await this.producer.close();
    for (let attempt = 1; ; attempt++) {
      try {
        this.producer = await open();
        break;
      } catch (openError) {
        if (this.stopped()) throw new StoppedWhileRetrying('open producer');
        this.log.warn(
          { attempt, err: describeError(openError) },
          'opening a producer failed; retrying',
        );
        await this.d.clock.sleep(backoffMs(attempt));
      }
    }
    try {
      await withRetry(this.retry, 'initTransactions', () => this.producer.init(), null);
    } catch (initError) {
      if (initError instanceof Fenced) return { kind: 'fenced' };
      throw initError;
    }
    this.log.info({ op: e.op }, 'fresh transactional producer ready');
    await rewindBatch(this.d, batch, true);
    safeHook(this.log, 'onAbort', () => this.d.hooks.onAbort?.(e.reason));
    return { kind: 'replaced', error: e.reason };
  }
}
