/** LoopConsumer over librdkafka's KafkaConsumer: manual offsets, rebalances queued until the loop applies them. */
import { KafkaConsumer } from '@confluentinc/kafka-javascript';
import type {
  LibrdKafkaError,
  Message,
  TopicPartition as RdTopicPartition,
} from '@confluentinc/kafka-javascript';
import { RD_CODES, describeError, errorCode } from './errors';
import { rateLimitedWarn } from './log';
import type { LoopConsumer, TopicPartition, TopicPartitionOffset } from './ports';
import { realClock } from './ports';
import { toInRecord } from './records';
import { consumerConfig, resolveTimeouts } from './settings';
import type { ConsumerSettings, ResolvedTimeouts } from './settings';
import type { InRecord, KafkaClientOptions, Logger } from './types';

type RebalanceEvent = { kind: 'assign' | 'revoke'; partitions: TopicPartition[] };

/** The soonest a consume error may apply the assignment again after the last time it did. */
const REASSIGN_MIN_INTERVAL_MS = 1000;

/**
 * Promisified connect, so that a dead cluster fails the call instead of hanging. It waits for the
 * first metadata answer: one request, or two connection attempts when the first broker is down.
 */
export function connectClient(
  c: { connect(opts: { timeout: number }, cb: (err: LibrdKafkaError | null) => void): unknown },
  t: Pick<ResolvedTimeouts, 'requestTimeoutMs' | 'connectTimeoutMs'>,
): Promise<void> {
  const timeoutMs = Math.max(t.requestTimeoutMs, t.connectTimeoutMs * 2);
  return new Promise((resolve, reject) => {
    c.connect({ timeout: timeoutMs }, (err) => (err ? reject(err) : resolve()));
  });
}

export class RdLoopConsumer implements LoopConsumer {
  private readonly queue: RebalanceEvent[] = [];
  private closing = false;
  private lastErrorLog = 0;
  /** The assignment last applied, and whether to apply it again (see `onConsumeError`). */
  private assigned: TopicPartition[] = [];
  private reassign = false;
  private lastReassign = 0;

  private constructor(
    readonly raw: KafkaConsumer,
    private readonly log: Logger,
    private readonly requestTimeoutMs: number,
  ) {}

  static async open(
    o: KafkaClientOptions,
    s: ConsumerSettings,
    topics: string[],
    log: Logger,
  ): Promise<RdLoopConsumer> {
    const t = resolveTimeouts(o);
    // The callback is created before the consumer it reports to; `holder` closes that loop.
    const holder: { self?: RdLoopConsumer } = {};
    const raw = new KafkaConsumer({
      ...consumerConfig(o, s),
      rebalance_cb: (err: LibrdKafkaError | undefined, assignment: RdTopicPartition[]) =>
        holder.self?.onRebalance(err, assignment),
      offset_commit_cb: (err: LibrdKafkaError | undefined, offsets: TopicPartitionOffset[]) => {
        if (err && errorCode(err) !== RD_CODES.ERR__NO_OFFSET /* nothing to commit */) {
          log.warn({ err: describeError(err), offsets: offsets?.length }, 'offset commit failed');
        }
      },
    });
    const self = new RdLoopConsumer(raw, log, t.requestTimeoutMs);
    holder.self = self;
    const warnEvent = rateLimitedWarn(log, 'consumer error event');
    raw.on('event.error', (e) => warnEvent({ err: describeError(e) }));
    // The C++ binding's "timeout only for the first message" mode: return what is ready instead of
    // waiting the full timeout for every further message. Not in the published typings.
    (
      raw as unknown as { setDefaultIsTimeoutOnlyForFirstMessage(b: boolean): void }
    ).setDefaultIsTimeoutOnlyForFirstMessage(true);
    await connectClient(raw, t);
    raw.subscribe(topics);
    return self;
  }

  private onRebalance(err: LibrdKafkaError | undefined, assignment: RdTopicPartition[]): void {
    const code = errorCode(err);
    const partitions = assignment.map((p) => ({ topic: p.topic, partition: p.partition }));
    const ev: RebalanceEvent = {
      kind: code === RD_CODES.ERR__ASSIGN_PARTITIONS ? 'assign' : 'revoke',
      partitions,
    };
    if (code !== RD_CODES.ERR__ASSIGN_PARTITIONS && code !== RD_CODES.ERR__REVOKE_PARTITIONS) {
      this.log.warn({ err: describeError(err) }, 'rebalance error; treating as a revocation');
    }
    this.log.info({ kind: ev.kind, partitions: partitions.length }, 'rebalance');
    // A new assignment fetches its committed offsets anyway, and a revocation leaves nothing to apply again.
    this.reassign = false;
    this.queue.push(ev);
    // While closing nobody else will apply it, and librdkafka's close waits for it.
    if (this.closing) this.applyRebalances();
  }

  rebalancePending(): boolean {
    return this.queue.length > 0 || this.reassign;
  }

  applyRebalances(): void {
    for (let ev = this.queue.shift(); ev !== undefined; ev = this.queue.shift()) {
      try {
        if (ev.kind === 'assign') this.raw.assign(ev.partitions);
        else this.raw.unassign();
        this.assigned = ev.kind === 'assign' ? ev.partitions : [];
        this.log.info({ kind: ev.kind, partitions: ev.partitions.length }, 'rebalance applied');
      } catch (e) {
        this.log.error({ kind: ev.kind, err: describeError(e) }, 'applying rebalance failed');
      }
    }
    if (this.reassign && !this.closing) {
      this.reassign = false;
      try {
        this.raw.assign(this.assigned);
        this.log.warn({ partitions: this.assigned.length }, 'assignment applied again');
      } catch (e) {
        this.log.error({ err: describeError(e) }, 'applying the assignment again failed');
      }
    }
  }

  consume(max: number, timeoutMs: number): Promise<InRecord[]> {
    return new Promise((resolve, reject) => {
      this.raw.setDefaultConsumeTimeout(Math.max(1, Math.round(timeoutMs)));
      this.raw.consume(Math.max(1, max), (err: LibrdKafkaError | null, messages: Message[]) => {
        if (!err) return resolve(messages.map((m) => toInRecord(m)));
        if (err.isFatal === true || err.code === RD_CODES.ERR__FATAL) return reject(err);
        this.onConsumeError(err);
        const now = realClock.now();
        if (now - this.lastErrorLog > 5000) {
          this.lastErrorLog = now;
          this.log.warn({ err: describeError(err) }, 'consume error (not fatal)');
        }
        // Errors return at once: pause so that a persistent one does not spin the loop.
        void realClock.sleep(Math.min(timeoutMs, 100)).then(() => resolve([]));
      });
    });
  }

  /**
   * A consume error "Not coordinator" is how librdkafka reports that fetching the committed offsets
   * of a new assignment failed because the group's coordinator had moved. For a request-level
   * error librdkafka 2.15.1 neither retries nor starts those partitions' fetchers, so they would
   * stay silent for as long as the assignment lasts (librdkafka#5586; the stall of
   * docs/GATEKEEPER.md, "A member that holds partitions and reads nothing"). Applying the same
   * assignment again fetches the committed offsets anew. It waits like a rebalance, so the
   * loop applies it between transactions, where every record consumed so far is committed or
   * rewound and the committed offsets are where the fetch must resume.
   */
  private onConsumeError(err: LibrdKafkaError): void {
    if (err.code !== RD_CODES.ERR_NOT_COORDINATOR || this.assigned.length === 0) return;
    const now = realClock.now();
    if (this.reassign || now - this.lastReassign < REASSIGN_MIN_INTERVAL_MS) return;
    this.lastReassign = now;
    this.log.warn(
      { partitions: this.assigned.length },
      'committed offsets not fetched (coordinator moved): the assignment will be applied again',
    );
    this.reassign = true;
  }

  async seek(positions: TopicPartitionOffset[]): Promise<void> {
    await Promise.all(
      positions.map(
        (p) =>
          new Promise<void>((resolve, reject) => {
            this.raw.seek(p, this.requestTimeoutMs, (err) => (err ? reject(err) : resolve()));
          }),
      ),
    );
  }

  committed(partitions: TopicPartition[]): Promise<TopicPartitionOffset[]> {
    return new Promise((resolve, reject) => {
      try {
        this.raw.committed(
          partitions.map((p) => ({ topic: p.topic, partition: p.partition })),
          this.requestTimeoutMs,
          (err, tps) => {
            if (err)
              return reject(err instanceof Error ? err : new Error(describeError(err).message));
            resolve(
              tps.map((t) => ({
                topic: t.topic,
                partition: t.partition,
                offset: typeof t.offset === 'number' ? t.offset : -1001,
              })),
            );
          },
        );
      } catch (e) {
        reject(e instanceof Error ? e : new Error(describeError(e).message));
      }
    });
  }

  commitAsync(offsets: TopicPartitionOffset[]): void {
    if (offsets.length === 0) return;
    try {
      this.raw.commit(offsets);
    } catch (e) {
      this.log.warn({ err: describeError(e) }, 'offset commit request failed');
    }
  }

  commitSync(offsets: TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return Promise.resolve();
    try {
      this.raw.commitSync(offsets);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(describeError(e).message));
    }
  }

  close(): Promise<void> {
    this.closing = true;
    this.applyRebalances();
    return new Promise((resolve) => {
      // librdkafka's close leaves the group; bound it so that shutdown cannot hang on a dead cluster.
      const guard = setTimeout(() => {
        this.log.warn({}, 'consumer close timed out');
        resolve();
      }, 30000);
      try {
        this.raw.disconnect(() => {
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
