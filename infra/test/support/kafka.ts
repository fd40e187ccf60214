/** Minimal Kafka helpers for the infra tests (KafkaJS-compatible API of @confluentinc/kafka-javascript). */
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { bootstrap, uniqueName } from './stack';

type Kafka = KafkaJS.Kafka;

export function kafka(brokers: string[] = bootstrap()): Kafka {
  // librdkafka logs connection refusals at error level while a broker is down; tests expect that.
  return new KafkaJS.Kafka({
    kafkaJS: { brokers, clientId: 'infra-test', logLevel: KafkaJS.logLevel.NOTHING },
  });
}

export async function withAdmin<T>(
  f: (admin: KafkaJS.Admin) => Promise<T>,
  brokers?: string[],
): Promise<T> {
  const admin = kafka(brokers).admin();
  await admin.connect();
  try {
    return await f(admin);
  } finally {
    await admin.disconnect();
  }
}

export async function createTopic(topic: string, partitions = 1): Promise<void> {
  await withAdmin(async (admin) => {
    await admin.createTopics({
      topics: [{ topic, numPartitions: partitions, replicationFactor: 3 }],
    });
  });
}

export async function deleteTopic(topic: string): Promise<void> {
  await withAdmin((admin) => admin.deleteTopics({ topics: [topic] }));
}

export async function partitionLeader(
  topic: string,
  brokers?: string[],
  partition = 0,
): Promise<{ leader: number; isr: number[] }> {
  const [meta] = await withAdmin((admin) => admin.fetchTopicMetadata({ topics: [topic] }), brokers);
  const p = meta?.partitions.find((x) => x.partitionId === partition);
  if (p === undefined) throw new Error(`no metadata for ${topic}-${partition}`);
  return { leader: p.leader, isr: p.isr };
}

/** Sends values one by one with acks=all (idempotent producer), so each is acknowledged by the ISR. */
export async function produceAcked(
  topic: string,
  values: string[],
  brokers?: string[],
): Promise<void> {
  const producer = kafka(brokers).producer({ kafkaJS: { acks: -1, idempotent: true } });
  await producer.connect();
  try {
    for (const value of values) await producer.send({ topic, messages: [{ value }] });
  } finally {
    await producer.disconnect();
  }
}

export interface ReadOptions {
  brokers?: string[];
  readUncommitted?: boolean;
  /** Stop once this many records arrived (then wait a little for any extra one). */
  expected: number;
  timeoutMs?: number;
}

/**
 * Reads a topic from the beginning with a fresh consumer group; returns the values in arrival order.
 * Waits for `expected` records (or the timeout), then 1.5 s more so that extra records are seen too.
 */
export async function readAll(topic: string, o: ReadOptions): Promise<string[]> {
  const consumer = kafka(o.brokers).consumer({
    kafkaJS: {
      groupId: uniqueName('infra-test'),
      fromBeginning: true,
      readUncommitted: o.readUncommitted ?? false,
      autoCommit: false,
    },
  });
  const values: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value === null ? '<null>' : message.value.toString());
      },
    });
    const deadline = Date.now() + (o.timeoutMs ?? 60_000);
    while (values.length < o.expected && Date.now() < deadline) await sleep(200);
    await sleep(1500);
    return [...values];
  } finally {
    await consumer.disconnect();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `read` until `done` holds or the timeout passes; returns the last value either way. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > deadline) return v;
    await sleep(1000);
  }
}
