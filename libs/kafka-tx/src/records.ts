/** Conversions between the client's message shapes and InRecord / OutRecord. */
import type { InRecord, OutRecord } from './types';

/** The subset of a node-rdkafka Message this library reads. */
export interface RawMessage {
  topic: string;
  partition: number;
  offset: number;
  key?: Buffer | string | null;
  value: Buffer | null;
  timestamp?: number;
  headers?: Record<string, string | Buffer>[];
}

function toBuffer(v: Buffer | string): Buffer {
  return typeof v === 'string' ? Buffer.from(v) : v;
}

export function toInRecord(m: RawMessage): InRecord {
  const headers: Record<string, Buffer> = {};
  for (const h of m.headers ?? []) {
    for (const [k, v] of Object.entries(h)) headers[k] = toBuffer(v);
  }
  return {
    topic: m.topic,
    partition: m.partition,
    offset: m.offset,
    key: m.key === undefined || m.key === null ? null : toBuffer(m.key),
    value: m.value ?? null,
    headers,
    timestamp: m.timestamp ?? 0,
  };
}

/** Arguments of Producer.produce(topic, partition, value, key, timestamp, opaque, headers). */
export interface ProduceArgs {
  topic: string;
  partition: number;
  value: Buffer | null;
  key: Buffer | string | null;
  timestamp: number | null;
  headers: Record<string, Buffer | string>[] | undefined;
}

/**
 * A zero-length view into a non-empty buffer. The binding passes a zero-length Buffer's data
 * pointer to librdkafka, and Node gives an empty Buffer no data (NULL): librdkafka then writes a
 * NULL value (or key), and an empty record, which other clients keep apart from a null one, comes
 * out null. A view keeps a real pointer with length 0, which librdkafka writes as empty.
 */
const EMPTY = Buffer.alloc(1).subarray(0, 0);

function keepEmpty<T extends Buffer | string | null>(b: T): T | Buffer {
  return Buffer.isBuffer(b) && b.length === 0 ? EMPTY : b;
}

export function toProduceArgs(r: OutRecord): ProduceArgs {
  const headers =
    r.headers === undefined ? undefined : Object.entries(r.headers).map(([k, v]) => ({ [k]: v }));
  return {
    topic: r.topic,
    // -1 is RD_KAFKA_PARTITION_UA: let the partitioner choose from the key.
    partition: r.partition ?? -1,
    value: keepEmpty(r.value),
    key: r.key === '' ? EMPTY : keepEmpty(r.key),
    timestamp: r.timestamp ?? null,
    headers,
  };
}
