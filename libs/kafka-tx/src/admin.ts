/** Idempotent topic creation and deletion, plus the admin-client helper shared with offsets.ts. */
import { AdminClient } from '@confluentinc/kafka-javascript';
import type {
  IAdminClient,
  LibrdKafkaError,
  TopicDescription,
} from '@confluentinc/kafka-javascript';
import { RD_CODES, describeError, errorCode } from './errors';
import { realClock } from './ports';
import { baseConfig, resolveTimeouts } from './settings';
import type { KafkaClientOptions, TopicSpec } from './types';

/** Runs f with a short-lived admin client, always disconnecting it. */
export async function withAdmin<T>(
  o: KafkaClientOptions,
  f: (a: IAdminClient, timeoutMs: number) => Promise<T>,
): Promise<T> {
  const t = resolveTimeouts(o);
  const admin = AdminClient.create(baseConfig(o));
  try {
    return await f(admin, t.requestTimeoutMs);
  } finally {
    admin.disconnect();
  }
}

export function describeTopics(
  a: IAdminClient,
  topics: string[],
  timeoutMs: number,
): Promise<TopicDescription[]> {
  return new Promise((resolve, reject) =>
    a.describeTopics(topics, { timeout: timeoutMs }, (err, res) =>
      err ? reject(err) : resolve(res),
    ),
  );
}

/** The topic's description, or rejects naming the topic (a missing topic too, unless `missingOk`: then undefined). */
async function describeTopic(
  a: IAdminClient,
  topic: string,
  timeoutMs: number,
  missingOk: false,
): Promise<TopicDescription>;
async function describeTopic(
  a: IAdminClient,
  topic: string,
  timeoutMs: number,
  missingOk: true,
): Promise<TopicDescription | undefined>;
async function describeTopic(
  a: IAdminClient,
  topic: string,
  timeoutMs: number,
  missingOk: boolean,
): Promise<TopicDescription | undefined> {
  const [d] = await describeTopics(a, [topic], timeoutMs);
  if (missingOk && d?.error && errorCode(d.error) === RD_CODES.ERR_UNKNOWN_TOPIC_OR_PART)
    return undefined;
  if (d === undefined || d.error)
    throw new Error(`kafka-tx: cannot describe topic ${topic}: ${describeError(d?.error).message}`);
  return d;
}

/** Partition numbers of a topic, sorted; rejects when the topic does not exist. */
export async function partitionsOf(
  a: IAdminClient,
  topic: string,
  timeoutMs: number,
): Promise<number[]> {
  const d = await describeTopic(a, topic, timeoutMs, false);
  return d.partitions.map((p) => p.partition).sort((x, y) => x - y);
}

/**
 * Whether the topic exists. The brokers create no topic on demand (docs/KAFKA.md), so a writer checks
 * first; rejects on any other error (an unreachable cluster is not a missing topic).
 */
export async function topicExists(o: KafkaClientOptions, topic: string): Promise<boolean> {
  return withAdmin(
    o,
    async (a, timeoutMs) => (await describeTopic(a, topic, timeoutMs, true)) !== undefined,
  );
}

/** Creates every missing topic (an existing one is left as it is) and waits until each partition has a leader. */
export async function createTopics(o: KafkaClientOptions, topics: TopicSpec[]): Promise<void> {
  await withAdmin(o, async (a, timeoutMs) => {
    for (const t of topics) {
      await new Promise<void>((resolve, reject) =>
        a.createTopic(
          {
            topic: t.topic,
            num_partitions: t.partitions,
            replication_factor: t.replicationFactor ?? 3,
            config: t.config ?? {},
          },
          timeoutMs,
          (err: LibrdKafkaError | undefined) =>
            !err || errorCode(err) === RD_CODES.ERR_TOPIC_ALREADY_EXISTS ? resolve() : reject(err),
        ),
      );
    }
    // Creation returns before every broker knows the topic; wait so that the caller's first produce succeeds.
    const deadline = realClock.now() + 30000;
    for (;;) {
      const ready = await describeTopics(
        a,
        topics.map((t) => t.topic),
        timeoutMs,
      ).then(
        (ds) =>
          ds.length === topics.length &&
          ds.every(
            (d) =>
              !d.error && d.partitions.length > 0 && d.partitions.every((p) => p.leader !== null),
          ),
        () => false,
      );
      if (ready) return;
      if (realClock.now() > deadline)
        throw new Error(
          `kafka-tx: topics not ready after 30 s: ${topics.map((t) => t.topic).join(', ')}`,
        );
      await realClock.sleep(200);
    }
  });
}

/** Deletes the topics; a topic that does not exist is not an error. */
export async function deleteTopics(o: KafkaClientOptions, topics: string[]): Promise<void> {
  await withAdmin(o, async (a, timeoutMs) => {
    for (const topic of topics) {
      await new Promise<void>((resolve, reject) =>
        a.deleteTopic(topic, timeoutMs, (err: LibrdKafkaError | undefined) =>
          !err || errorCode(err) === RD_CODES.ERR_UNKNOWN_TOPIC_OR_PART ? resolve() : reject(err),
        ),
      );
    }
  });
}

/**
 * Deletes every record before `before[partition]` in each partition named (Kafka's DeleteRecords,
 * what `kafka-delete-records.sh` sends): the log start moves there, as retention moves it when it
 * deletes a segment. An offset past the partition's end fails the call.
 */
export async function deleteRecordsBefore(
  o: KafkaClientOptions,
  topic: string,
  before: Readonly<Record<number, number>>,
): Promise<void> {
  await withAdmin(
    o,
    (a, timeoutMs) =>
      new Promise<void>((resolve, reject) =>
        a.deleteRecords(
          Object.entries(before).map(([partition, offset]) => ({
            topic,
            partition: Number(partition),
            offset,
          })),
          { timeout: timeoutMs, operationTimeout: timeoutMs },
          (err, res) => {
            const bad = res?.find((r) => r.error);
            if (err || bad) reject(err ?? bad?.error);
            else resolve();
          },
        ),
      ),
  );
}

/** Java's `String.hashCode` (UTF-16 code units, 32-bit overflow), which Kafka uses to place coordinators. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The `__transaction_state` partition of a transactional id: Kafka's
 * `Utils.abs(transactionalId.hashCode) % partitionCount`, where `Utils.abs(n)` is `Math.abs(n)`
 * except that `Integer.MIN_VALUE` maps to 0 (not a sign-bit mask: the two differ for every
 * negative hash; the brokers' logs placed groups by this formula).
 */
export function transactionStatePartition(transactionalId: string, partitionCount: number): number {
  const h = javaStringHashCode(transactionalId);
  return (h === -2147483648 ? 0 : Math.abs(h)) % partitionCount;
}

/**
 * Node id of the broker coordinating a transactional id right now: the leader of its
 * `__transaction_state` partition, from one metadata request (no JVM, unlike Kafka's
 * `TransactionsCommand describe`). Null when that partition has no leader or the internal topic
 * does not exist yet (no transaction has run on the cluster).
 */
export async function transactionCoordinator(
  o: KafkaClientOptions,
  transactionalId: string,
): Promise<number | null> {
  return withAdmin(o, async (a, timeoutMs) => {
    const [d] = await describeTopics(a, ['__transaction_state'], timeoutMs);
    if (d === undefined || d.error || d.partitions.length === 0) return null;
    const p = transactionStatePartition(transactionalId, d.partitions.length);
    const leader = d.partitions.find((x) => x.partition === p)?.leader;
    return leader?.id ?? null;
  });
}
