/** Reading whole topics (or their records since a time) up to the end offsets captured at the start, and end offsets. */
import { IsolationLevel, KafkaConsumer, OffsetSpec } from '@confluentinc/kafka-javascript';
import type {
  IAdminClient,
  LibrdKafkaError,
  ListOffsetsResult,
  Message,
} from '@confluentinc/kafka-javascript';
import { randomUUID } from 'node:crypto';
import { partitionsOf, withAdmin } from './admin';
import { describeError } from './errors';
import { connectClient } from './rd-consumer';
import { toInRecord } from './records';
import { consumerConfig, resolveTimeouts } from './settings';
import type { InRecord, Isolation, KafkaClientOptions } from './types';

/** The offset of each partition at `spec` (earliest, latest, or a time). */
export function listOffsets(
  a: IAdminClient,
  topic: string,
  partitions: number[],
  spec: OffsetSpec,
  isolation: Isolation,
  timeoutMs: number,
): Promise<Map<number, number>> {
  return new Promise((resolve, reject) =>
    a.listOffsets(
      partitions.map((partition) => ({ topic, partition, offset: spec })),
      {
        timeout: timeoutMs,
        isolationLevel:
          isolation === 'read_committed'
            ? IsolationLevel.READ_COMMITTED
            : IsolationLevel.READ_UNCOMMITTED,
      },
      (err: LibrdKafkaError, res: ListOffsetsResult[]) => {
        if (err) return reject(err);
        const bad = res.find((r) => r.error);
        if (bad) return reject(bad.error);
        resolve(new Map(res.map((r) => [r.partition, r.offset])));
      },
    ),
  );
}

/** End offset per partition: the high watermark, or for read_committed the last stable offset (LSO). */
export function endOffsets(
  o: KafkaClientOptions,
  topic: string,
  isolation: Isolation = 'read_committed',
): Promise<Map<number, number>> {
  return withAdmin(o, async (a, timeoutMs) =>
    listOffsets(
      a,
      topic,
      await partitionsOf(a, topic, timeoutMs),
      OffsetSpec.LATEST,
      isolation,
      timeoutMs,
    ),
  );
}

/**
 * Where a read of each partition starts: the log start, or with `fromTimeMs` the first offset
 * whose timestamp is at or after it (the broker's time index; -1, no such record, means the end).
 * Every record with a timestamp >= fromTimeMs is at or after that offset, even on a CreateTime
 * topic whose timestamps are not in offset order: only records before it can be skipped.
 * Also the log start itself, for trimmedBeforeRead.
 */
async function startOffsets(
  a: IAdminClient,
  topic: string,
  parts: number[],
  end: Map<number, number>,
  fromTimeMs: number | undefined,
  isolation: Isolation,
  timeoutMs: number,
): Promise<{ begin: Map<number, number>; logStart: Map<number, number> }> {
  const logStart = await listOffsets(a, topic, parts, OffsetSpec.EARLIEST, isolation, timeoutMs);
  if (fromTimeMs === undefined || fromTimeMs <= 0) return { begin: logStart, logStart };
  const byTime = await listOffsets(
    a,
    topic,
    parts,
    new OffsetSpec(fromTimeMs),
    isolation,
    timeoutMs,
  );
  const begin = new Map(
    parts.map((p) => {
      const found = byTime.get(p) ?? -1;
      const first = logStart.get(p) ?? 0;
      const last = end.get(p) ?? 0;
      return [p, found < 0 ? last : Math.min(last, Math.max(first, found))];
    }),
  );
  return { begin, logStart };
}

/** What a bounded read of one topic reads: the topic, the isolation (read_committed by default), and where it starts. */
export type TopicReadOptions = KafkaClientOptions & {
  topic: string;
  isolation?: Isolation;
  fromTimeMs?: number;
};

/**
 * The offsets a bounded read covers: per partition, [begin, end) with end taken now (LSO for
 * read_committed), and the partition's log start when the ranges were taken (every offset before
 * it is deleted: by retention, or by a DeleteRecords request).
 */
export interface ReadRanges {
  begin: Map<number, number>;
  end: Map<number, number>;
  logStart: Map<number, number>;
}

/**
 * The partitions whose read would have begun before their log start: it begins right at the log
 * start, and records before it were deleted. Those records were older than the first one kept, so
 * with `fromTimeMs` some of them may have been stamped at or after it (a run's first records,
 * lost to retention); without it, every one of them was wanted. Sorted by partition.
 */
export function trimmedBeforeRead(r: ReadRanges): { partition: number; logStart: number }[] {
  return [...r.logStart]
    .filter(([p, start]) => start > 0 && (r.begin.get(p) ?? 0) === start)
    .sort(([x], [y]) => x - y)
    .map(([partition, logStart]) => ({ partition, logStart }));
}

/** Where readTopic (and scanTopic) start and stop in each partition; see startOffsets. */
export function readRanges(o: TopicReadOptions): Promise<ReadRanges> {
  const isolation = o.isolation ?? 'read_committed';
  return withAdmin(o, async (a, timeoutMs) => {
    const parts = await partitionsOf(a, o.topic, timeoutMs);
    const end = await listOffsets(a, o.topic, parts, OffsetSpec.LATEST, isolation, timeoutMs);
    const start = await startOffsets(a, o.topic, parts, end, o.fromTimeMs, isolation, timeoutMs);
    return { ...start, end };
  });
}

/**
 * Every record of every partition from the beginning (or, with `fromTimeMs`, from the first record
 * stamped at or after that time) up to the end offsets captured when the call starts (LSO for
 * read_committed: transactions still open then are excluded). Records appended later are ignored.
 * In partition order, then offset order.
 */
export async function readTopic(o: TopicReadOptions): Promise<InRecord[]> {
  return readTopicRanges(o, await readRanges(o));
}

/** readTopic over ranges already taken (scanTopic takes them once for either reader). */
export async function readTopicRanges(
  o: TopicReadOptions,
  { begin, end }: ReadRanges,
): Promise<InRecord[]> {
  const isolation = o.isolation ?? 'read_committed';
  const t = resolveTimeouts(o);
  const open = new Set([...end.keys()].filter((p) => (end.get(p) ?? 0) > (begin.get(p) ?? 0)));
  const byPartition = new Map<number, InRecord[]>([...end.keys()].map((p) => [p, []]));
  if (open.size === 0) return [];

  // A group id is required by the client but nothing is ever committed under it.
  const consumer = new KafkaConsumer({
    ...consumerConfig(o, {
      groupId: `kafka-tx-read-${randomUUID()}`,
      isolation,
      startFrom: 'earliest',
    }),
    // EOF tells when a partition is exhausted even if its last offsets are transaction markers,
    // which a read_committed consumer never returns.
    'enable.partition.eof': true,
    // A bounded read never waits for new records: the broker answers the fetch that finds a
    // partition at its end only after this, and that answer is the EOF the read waits for. The
    // consumers' 500 ms (settings.ts) made every read last about a second however small its topic.
    'fetch.wait.max.ms': 10,
  });
  const onEof = (e: { partition: number; offset: number }): void => {
    if (e.offset >= (end.get(e.partition) ?? 0)) open.delete(e.partition);
  };
  consumer.on('partition.eof', onEof);
  (
    consumer as unknown as { setDefaultIsTimeoutOnlyForFirstMessage(b: boolean): void }
  ).setDefaultIsTimeoutOnlyForFirstMessage(true);
  await connectClient(consumer, t);
  try {
    consumer.assign(
      [...open].map((partition) => ({
        topic: o.topic,
        partition,
        offset: begin.get(partition) ?? 0,
      })),
    );
    consumer.setDefaultConsumeTimeout(500);
    let idleSince = Date.now();
    while (open.size > 0) {
      const msgs = await new Promise<Message[]>((resolve, reject) =>
        consumer.consume(10000, (err: LibrdKafkaError | null, m: Message[]) => {
          if (!err) return resolve(m);
          if (err.isFatal === true) return reject(err);
          resolve([]);
        }),
      );
      if (msgs.length > 0) idleSince = Date.now();
      else if (Date.now() - idleSince > 120000) {
        throw new Error(
          `kafka-tx: readTopic ${o.topic} made no progress for 120 s; partitions still open: ${[...open].join(',')}`,
        );
      }
      for (const m of msgs) {
        const stop = end.get(m.partition) ?? 0;
        if (m.offset < stop) byPartition.get(m.partition)?.push(toInRecord(m));
        if (m.offset >= stop - 1) open.delete(m.partition);
      }
    }
  } catch (e) {
    o.logger.error({ topic: o.topic, err: describeError(e) }, 'readTopic failed');
    throw e;
  } finally {
    await new Promise<void>((resolve) => consumer.disconnect(() => resolve()));
  }
  return [...byPartition.keys()].sort((x, y) => x - y).flatMap((p) => byPartition.get(p) ?? []);
}
