/** Consumer-group lag: end offsets against the group's last committed offsets, for the lag gauges and tests. */
import { AdminClient, KafkaConsumer, OffsetSpec } from '@confluentinc/kafka-javascript';
import type {
  IAdminClient,
  LibrdKafkaError,
  TopicPartitionOffset,
} from '@confluentinc/kafka-javascript';
import { partitionsOf } from './admin';
import { listOffsets } from './offsets';
import { connectClient } from './rd-consumer';
import { baseConfig, consumerConfig, resolveTimeouts } from './settings';
import type { KafkaClientOptions } from './types';

/**
 * A group's lag on its topics, read again and again over the same two clients: an admin client for
 * the partitions and end offsets, and a consumer under the group's id that never subscribes (so
 * never joins the group) for the last committed offsets. The gatekeeper's and the loader's lag
 * gauges keep one for their lifetime; `committedLag` connected both clients to the cluster at every
 * poll.
 *
 * Committed offsets are read by that consumer, not by the admin client's ListConsumerGroupOffsets:
 * librdkafka crashes the process when that call's answer is NOT_COORDINATOR, as it is while the
 * group's coordinator moves (it asks a consumer group handle that an admin client does not have to
 * find the new coordinator: librdkafka issue 5040; docs/MEASUREMENTS.md has our core dump). A
 * consumer has that handle, and the same answer fails only this call.
 *
 * An offset sent within a transaction still open counts only once that transaction commits: it is
 * not waited for, since a transactional copier killed mid-transaction leaves it open until its
 * timeout, and asking for stable offsets then fails the call after the request timeout
 * (copy-crash.int.ts did).
 */
export interface LagReader {
  /** Sum over the topic's partitions of (end - committed); a partition without a committed offset counts from its log start. */
  lag(topic: string): Promise<number>;
  /** Disconnects both clients; the reader is not used after. */
  close(): Promise<void>;
}

interface LagClients {
  admin: IAdminClient;
  consumer: KafkaConsumer;
}

async function openLagClients(o: KafkaClientOptions, groupId: string): Promise<LagClients> {
  const admin = AdminClient.create(baseConfig(o));
  // read_uncommitted: librdkafka's OffsetFetch then does not require stable offsets (it does for read_committed).
  const consumer = new KafkaConsumer(
    consumerConfig(o, { groupId, isolation: 'read_uncommitted', startFrom: 'earliest' }),
  );
  try {
    await connectClient(consumer, resolveTimeouts(o));
  } catch (e) {
    admin.disconnect();
    throw e;
  }
  return { admin, consumer };
}

async function closeLagClients(c: LagClients): Promise<void> {
  c.admin.disconnect();
  await new Promise<void>((resolve) => c.consumer.disconnect(() => resolve()));
}

function committedOffsets(
  consumer: KafkaConsumer,
  topic: string,
  parts: number[],
  timeoutMs: number,
): Promise<Map<number, number>> {
  return new Promise((resolve, reject) =>
    consumer.committed(
      parts.map((partition) => ({ topic, partition })),
      timeoutMs,
      (err: LibrdKafkaError | null, tps: TopicPartitionOffset[]) => {
        if (err) return reject(err);
        const bad = tps.find((tp) => tp.error);
        if (bad) return reject(bad.error);
        // librdkafka reports "no committed offset" as a negative offset (OFFSET_INVALID).
        resolve(new Map(tps.filter((tp) => tp.offset >= 0).map((tp) => [tp.partition, tp.offset])));
      },
    ),
  );
}

/**
 * Opens the clients at the first call. A failed call closes them and the next call opens new ones,
 * so a client left in a bad state by a dead broker lives no longer than one poll (what the
 * one-shot `committedLag` gave); a healthy one is reused.
 */
export function lagReader(o: KafkaClientOptions, groupId: string): LagReader {
  const timeoutMs = resolveTimeouts(o).requestTimeoutMs;
  let clients: Promise<LagClients> | undefined;
  let closed = false;
  const drop = async (c: Promise<LagClients>): Promise<void> => {
    if (clients !== c) return; // dropped already (by close() during this call, or by that call)
    clients = undefined;
    await c.then(closeLagClients, () => undefined);
  };
  return {
    async lag(topic) {
      if (closed) throw new Error('kafka-tx: lagReader used after close()');
      const c = (clients ??= openLagClients(o, groupId));
      try {
        const { admin, consumer } = await c;
        const parts = await partitionsOf(admin, topic, timeoutMs);
        const end = await listOffsets(
          admin,
          topic,
          parts,
          OffsetSpec.LATEST,
          'read_committed',
          timeoutMs,
        );
        const start = await listOffsets(
          admin,
          topic,
          parts,
          OffsetSpec.EARLIEST,
          'read_committed',
          timeoutMs,
        );
        const committed = await committedOffsets(consumer, topic, parts, timeoutMs);
        let lag = 0;
        for (const p of parts) {
          const e = end.get(p) ?? 0;
          lag += Math.max(0, e - (committed.get(p) ?? start.get(p) ?? 0));
        }
        return lag;
      } catch (e) {
        await drop(c);
        throw e;
      }
    },
    async close() {
      closed = true;
      if (clients) await drop(clients);
    },
  };
}

/** One lag reading with clients of its own (tests, benches, tools); pollers keep a `lagReader`. */
export async function committedLag(
  o: KafkaClientOptions,
  groupId: string,
  topic: string,
): Promise<number> {
  const r = lagReader(o, groupId);
  try {
    return await r.lag(topic);
  } finally {
    await r.close();
  }
}
