/** TxProducer over librdkafka's transactional Producer, sending offsets with a KafkaConsumer's group metadata. */
import { Producer } from '@confluentinc/kafka-javascript';
import type { KafkaConsumer, LibrdKafkaError } from '@confluentinc/kafka-javascript';
import { RD_CODES, describeError, errorCode } from './errors';
import { rateLimitedWarn } from './log';
import type { TopicPartitionOffset, TxProducer } from './ports';
import { realClock } from './ports';
import { toProduceArgs } from './records';
import { connectClient } from './rd-consumer';
import { producerConfig, resolveTimeouts } from './settings';
import type { KafkaClientOptions, Logger, OutRecord } from './types';

type Cb = (err: LibrdKafkaError | null | undefined) => void;

/**
 * Produces a record, waiting for queue space when librdkafka's local queue is full; rethrows
 * anything else. Shared with the idempotent producer.
 */
export async function produceWithBackpressure(
  raw: Producer,
  r: OutRecord,
  opaque: unknown,
): Promise<void> {
  const a = toProduceArgs(r);
  for (;;) {
    try {
      raw.produce(a.topic, a.partition, a.value, a.key, a.timestamp, opaque, a.headers);
      return;
    } catch (e) {
      if (errorCode(e) !== RD_CODES.ERR__QUEUE_FULL) throw e;
      await realClock.sleep(10);
    }
  }
}

/** How long a fatal error waits for the error event that may say it was fencing. */
const FENCED_EVENT_GRACE_MS = 1000;

/**
 * Upper bound of a transactional call's own timeout. librdkafka retries a dead coordinator within
 * the call (10 s per request) instead of looking up the new one; the engine replaces the producer
 * when a call times out, so a short timeout ends such a stall sooner. A commit that is merely slow
 * costs a replacement and a rewind, never a duplicate.
 */
const TX_CALL_TIMEOUT_MAX_MS = 5000;

/** Extra time after a call's timeout before it is declared hung (librdkafka#5456/#5511). */
const HUNG_CALL_GRACE_MS = 3000;

/**
 * Native transactional calls still running in librdkafka, of every producer in this process. Each
 * settles when librdkafka calls back, which may be long after the JS promise of the call gave up.
 *
 * Destroying a transactional producer while one of its calls runs deadlocks librdkafka 2.15.1
 * (the call waits with no timeout on a condition variable that rd_kafka_destroy is tearing down),
 * and the process then hangs at exit joining that libuv worker. So a producer is never
 * disconnected while a call of its own is in flight, and the consumer whose group metadata
 * sendOffsets reads is closed only once no call is in flight (see `txCallsSettled`).
 */
const nativeCalls = new Set<Promise<void>>();

/**
 * Producers given up with a call still in flight. They are never disconnected (that would
 * deadlock), and they are held here so that garbage collection never destroys them either.
 */
const abandoned = new Set<Producer>();

/** How long close waits for the producer's own calls before giving it up undestroyed. */
const CLOSE_WAIT_MARGIN_MS = 2 * HUNG_CALL_GRACE_MS;

/**
 * Waits until no native transactional call runs in this process, at most `timeoutMs`. False when
 * one is still running: the caller must not tear down what the call uses, and a process that
 * exits now would hang in libuv's shutdown (exit with SIGKILL instead).
 */
export async function txCallsSettled(timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (nativeCalls.size > 0) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await Promise.race([Promise.all([...nativeCalls]), realClock.sleep(Math.min(left, 100))]);
  }
  return true;
}

/** Native transactional calls in flight (for a process deciding how to exit). */
export function pendingTxCalls(): number {
  return nativeCalls.size;
}

export class RdTxProducer implements TxProducer {
  /**
   * The last error event that names fencing. Error events carry only a message (the binding drops
   * the code and the fatal flag), and a later call on a fenced producer only says "fatal".
   */
  private fencedEvent: string | null = null;

  /** This producer's native calls in flight (a subset of `nativeCalls`). */
  private readonly ownCalls = new Set<Promise<void>>();

  private closing = false;

  private constructor(
    readonly raw: Producer,
    private readonly consumer: KafkaConsumer,
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {}

  static async open(
    o: KafkaClientOptions,
    transactionalId: string,
    consumer: KafkaConsumer,
    log: Logger,
  ): Promise<RdTxProducer> {
    const t = resolveTimeouts(o);
    const raw = new Producer(producerConfig(o, transactionalId));
    const self = new RdTxProducer(
      raw,
      consumer,
      Math.min(t.requestTimeoutMs, TX_CALL_TIMEOUT_MAX_MS),
      log,
    );
    const warnEvent = rateLimitedWarn(log, 'producer error event');
    raw.on('event.error', (e) => {
      if (/fenced/i.test(e.message)) {
        self.fencedEvent = e.message;
        log.error({ err: describeError(e) }, 'producer fenced error event');
      } else warnEvent({ err: describeError(e) });
    });
    await connectClient(raw, t);
    // Serve librdkafka's events on its own thread; transactional commits do the flushing.
    raw.setPollInBackground(true);
    return self;
  }

  /** Replaces a bare "fatal" error by the recorded fencing event, which says why. */
  private explain(e: unknown): unknown {
    if (errorCode(e) === RD_CODES.ERR__FATAL && this.fencedEvent !== null) {
      return Object.assign(new Error(this.fencedEvent), {
        code: RD_CODES.ERR__FATAL,
        isFatal: true,
      });
    }
    return e;
  }

  /**
   * A call on a fenced producer can fail with a bare "fatal" a moment before the error event that
   * names fencing reaches JS (seen: 1 ms apart). Deciding on the bare error would treat fencing as
   * an ordinary fatal error, and a caller that restarts after those would fence the newer instance
   * back: the two would take turns forever. So a fatal error waits briefly for that event.
   */
  private async explainAfterEvents(e: unknown): Promise<unknown> {
    if (errorCode(e) !== RD_CODES.ERR__FATAL) return e;
    for (
      let waited = 0;
      this.fencedEvent === null && waited < FENCED_EVENT_GRACE_MS;
      waited += 10
    ) {
      await realClock.sleep(10);
    }
    return this.explain(e);
  }

  /**
   * Runs a transactional call. A call that never calls back (librdkafka#5456/#5511) is failed as a
   * timeout after its own timeout plus a grace, so that the engine replaces this producer.
   */
  private call(f: (cb: Cb) => void): Promise<void> {
    if (this.closing) {
      return Promise.reject(new Error('kafka-tx: transactional call on a closing producer'));
    }
    let settleNative = (): void => undefined;
    const native = new Promise<void>((r) => (settleNative = r));
    nativeCalls.add(native);
    this.ownCalls.add(native);
    void native.then(() => {
      nativeCalls.delete(native);
      this.ownCalls.delete(native);
    });
    return new Promise((resolve, reject) => {
      let done = false;
      const guard = setTimeout(() => {
        if (done) return;
        done = true;
        reject(
          Object.assign(new Error(`kafka-tx: transactional call did not return in time`), {
            code: RD_CODES.ERR__TIMED_OUT,
            isRetriable: true,
          }),
        );
      }, this.timeoutMs + HUNG_CALL_GRACE_MS);
      const fail = (e: unknown): void => {
        if (done) return;
        done = true;
        clearTimeout(guard);
        this.explainAfterEvents(e).then(reject, () => reject(e));
      };
      try {
        f((err) => {
          settleNative();
          if (err) return fail(err);
          if (done) return;
          done = true;
          clearTimeout(guard);
          resolve();
        });
      } catch (e) {
        settleNative();
        fail(e);
      }
    });
  }

  init(): Promise<void> {
    return this.call((cb) => this.raw.initTransactions(this.timeoutMs, cb));
  }

  begin(): Promise<void> {
    return this.call((cb) => this.raw.beginTransaction(cb));
  }

  async produce(records: OutRecord[]): Promise<void> {
    try {
      for (const r of records) await produceWithBackpressure(this.raw, r, null);
    } catch (e) {
      throw await this.explainAfterEvents(e);
    }
  }

  sendOffsets(offsets: TopicPartitionOffset[]): Promise<void> {
    return this.call((cb) =>
      this.raw.sendOffsetsToTransaction(offsets, this.consumer, this.timeoutMs, cb),
    );
  }

  commit(): Promise<void> {
    return this.call((cb) => this.raw.commitTransaction(this.timeoutMs, cb));
  }

  abort(): Promise<void> {
    return this.call((cb) => this.raw.abortTransaction(this.timeoutMs, cb));
  }

  /**
   * Disconnects, once none of this producer's transactional calls is in flight. A call that does
   * not return within its timeout plus a margin is hung (librdkafka#5456/#5511): the producer is
   * then given up undestroyed rather than deadlocked (see `nativeCalls`).
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.ownCalls.size > 0) {
      const calls = [...this.ownCalls];
      const settled = await Promise.race([
        Promise.all(calls).then(() => true),
        realClock.sleep(this.timeoutMs + CLOSE_WAIT_MARGIN_MS).then(() => false),
      ]);
      if (!settled) {
        abandoned.add(this.raw);
        this.log.error(
          { inFlight: this.ownCalls.size, abandoned: abandoned.size },
          'producer given up undestroyed: a transactional call is still in flight',
        );
        return;
      }
    }
    return this.disconnect();
  }

  private disconnect(): Promise<void> {
    return new Promise((resolve) => {
      // Bounded: a producer abandoned on a dead coordinator may never finish disconnecting.
      const guard = setTimeout(resolve, 5000);
      try {
        this.raw.disconnect(2000, () => {
          clearTimeout(guard);
          resolve();
        });
      } catch {
        clearTimeout(guard);
        resolve();
      }
    });
  }
}
