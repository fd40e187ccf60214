/** The front door's per-record decision, as a pure function: one raw record in, exactly one output record (valid or dead letter) out. */

import { createHash } from 'crypto';
import {
  CANONICAL_VERSION,
  HEADERS,
  MAX_EVENT_BYTES,
  decodeEvent,
  encodeEvent,
  type RejectReason,
  type SchemaVersion,
} from '@clickstream/contracts';
import type { InRecord, OutRecord } from '@clickstream/kafka-tx';

export interface OutputTopics {
  valid: string;
  dlq: string;
}

export type Outcome =
  | { kind: 'valid'; version: SchemaVersion }
  | { kind: 'dead_letter'; reason: RejectReason; detail: string };

export interface Routed {
  out: OutRecord;
  outcome: Outcome;
}

/** Header values are bytes on the wire, but a detail only needs to tell a human what went wrong. */
export const MAX_DETAIL_CHARS = 640;

/**
 * Largest output record (key + value + headers) the gatekeeper produces. A raw record near the
 * broker's limit (1 MiB) would not fit once the DLQ headers are added, nor under librdkafka's
 * default message.max.bytes (1,000,000): its transaction would fail on every retry and stall the
 * partition. So a record that big is dead-lettered with its value clipped (see deadLetter).
 */
export const MAX_OUTPUT_BYTES = 900_000;
/** What is kept of a clipped dead letter's value and key. */
export const CLIPPED_VALUE_BYTES = MAX_EVENT_BYTES;
export const CLIPPED_KEY_BYTES = 1024;

const EMPTY = Buffer.alloc(0);

function recordBytes(
  key: Buffer | string | null,
  value: Buffer | null,
  headers: Record<string, Buffer>,
): number {
  let n = (key?.length ?? 0) + (value?.length ?? 0);
  for (const name in headers) n += Buffer.byteLength(name) + (headers[name]?.length ?? 0);
  return n;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Copies the raw headers so the output never aliases the input's object. A later header with the
 * same name as one of ours is replaced below, so a client cannot forge a reason or a source.
 */
function copyHeaders(record: InRecord): Record<string, Buffer> {
  // No prototype: a header literally named "__proto__" must stay a header, not become one.
  const headers = Object.create(null) as Record<string, Buffer>;
  for (const [name, value] of Object.entries(record.headers ?? {})) headers[name] = value;
  return headers;
}

/** A Kafka timestamp the producer can set again; librdkafka treats 0 and negatives as "now". */
function outTimestamp(record: InRecord): number | undefined {
  return Number.isSafeInteger(record.timestamp) && record.timestamp > 0
    ? record.timestamp
    : undefined;
}

/**
 * Keeps the original key, value and headers unless the dead letter would exceed MAX_OUTPUT_BYTES;
 * then it gives up, in this order, the value's tail, the non-contract headers and the key's tail,
 * and says so in the detail (with the original value's length and sha256, to match it to the raw record).
 */
function fitDeadLetter(
  record: InRecord,
  headers: Record<string, Buffer>,
): { key: Buffer | null; value: Buffer | null; headers: Record<string, Buffer>; note: string } {
  let { key, value } = record;
  const notes: string[] = [];
  const ours = 2000; // our five headers, detail included (multi-byte characters too)
  if (
    recordBytes(key, value, headers) + ours > MAX_OUTPUT_BYTES &&
    value !== null &&
    value.length > CLIPPED_VALUE_BYTES
  ) {
    notes.push(
      `value clipped to its first ${CLIPPED_VALUE_BYTES} of ${value.length} bytes, sha256 ${createHash('sha256').update(value).digest('hex')}`,
    );
    value = value.subarray(0, CLIPPED_VALUE_BYTES);
  }
  if (recordBytes(key, value, headers) + ours > MAX_OUTPUT_BYTES) {
    const kept = Object.create(null) as Record<string, Buffer>;
    for (const name of [HEADERS.seq, HEADERS.runId])
      if (headers[name] !== undefined && (headers[name] as Buffer).length <= 64)
        kept[name] = headers[name] as Buffer;
    notes.push('headers other than cs-seq and cs-run-id dropped');
    headers = kept;
  }
  if (recordBytes(key, value, headers) + ours > MAX_OUTPUT_BYTES && key !== null) {
    notes.push(`key clipped to its first ${CLIPPED_KEY_BYTES} of ${key.length} bytes`);
    key = key.subarray(0, CLIPPED_KEY_BYTES);
  }
  return {
    key,
    value,
    headers,
    note: notes.length > 0 ? `; too large to forward: ${notes.join('; ')}` : '',
  };
}

function deadLetter(
  record: InRecord,
  topics: OutputTopics,
  reason: RejectReason,
  detail: string,
): Routed {
  const fitted = fitDeadLetter(record, copyHeaders(record));
  const room = MAX_DETAIL_CHARS - fitted.note.length;
  const clipped = (detail.length > room ? `${detail.slice(0, room - 3)}...` : detail) + fitted.note;
  const headers = fitted.headers;
  headers[HEADERS.reason] = Buffer.from(reason);
  headers[HEADERS.detail] = Buffer.from(clipped);
  headers[HEADERS.sourceTopic] = Buffer.from(record.topic);
  headers[HEADERS.sourcePartition] = Buffer.from(String(record.partition));
  headers[HEADERS.sourceOffset] = Buffer.from(String(record.offset));
  const out: OutRecord = {
    topic: topics.dlq,
    partition: record.partition,
    key: fitted.key,
    value: fitted.value,
    headers,
  };
  const timestamp = outTimestamp(record);
  if (timestamp !== undefined) out.timestamp = timestamp;
  return { out, outcome: { kind: 'dead_letter', reason, detail: clipped } };
}

/**
 * Classifies one raw record. The ingest time is the raw record's Kafka timestamp, so a replay after
 * any crash stamps and classifies the record identically. The seq header is never read: poison
 * with a garbled header is still judged by its bytes alone.
 */
export function routeRecord(record: InRecord, topics: OutputTopics): Routed {
  const ingestTime = record.timestamp;
  let decoded: ReturnType<typeof decodeEvent>;
  try {
    decoded = decodeEvent(record.value ?? EMPTY, { ingestTime });
  } catch (error) {
    // decodeEvent promises never to throw; if it does, the bytes still decide it (the same bytes
    // throw again on a retry), so this is a definite rejection, not a reason to stall the partition.
    return deadLetter(record, topics, 'malformed_body', `decoder threw: ${describe(error)}`);
  }
  if (!decoded.ok) return deadLetter(record, topics, decoded.reason, decoded.detail);

  let value: Buffer;
  try {
    value = encodeEvent({ ...decoded.event, ingest_time: ingestTime }, CANONICAL_VERSION);
  } catch (error) {
    return deadLetter(
      record,
      topics,
      'invalid_field',
      `canonical re-encoding failed: ${describe(error)}`,
    );
  }
  const headers = copyHeaders(record);
  const size = recordBytes(record.key, value, headers);
  if (size > MAX_OUTPUT_BYTES)
    return deadLetter(
      record,
      topics,
      'oversized',
      `valid event, but key + value + headers are ${size} bytes > ${MAX_OUTPUT_BYTES}`,
    );
  const out: OutRecord = {
    topic: topics.valid,
    partition: record.partition,
    key: record.key,
    value,
    headers,
  };
  const timestamp = outTimestamp(record);
  if (timestamp !== undefined) out.timestamp = timestamp;
  return { out, outcome: { kind: 'valid', version: decoded.version } };
}

/** The output record alone (see routeRecord for the outcome as well). */
export function route(record: InRecord, topics: OutputTopics): OutRecord {
  return routeRecord(record, topics).out;
}
