/** The front door's per-record decision, as a pure function: one raw record in, exactly one output record (valid or dead letter) out. */

import { CANONICAL_VERSION, HEADERS, decodeEvent, encodeEvent, type RejectReason, type SchemaVersion } from '@clickstream/contracts';
import type { InRecord, OutRecord } from '@clickstream/kafka-tx';

export interface OutputTopics {
  valid: string;
  dlq: string;
}

export type Outcome = { kind: 'valid'; version: SchemaVersion } | { kind: 'dead_letter'; reason: RejectReason; detail: string };

export interface Routed {
  out: OutRecord;
  outcome: Outcome;
}

/** Header values are bytes on the wire, but a detail only needs to tell a human what went wrong. */
export const MAX_DETAIL_CHARS = 512;

const EMPTY = Buffer.alloc(0);

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
  return Number.isSafeInteger(record.timestamp) && record.timestamp > 0 ? record.timestamp : undefined;
}

function deadLetter(record: InRecord, topics: OutputTopics, reason: RejectReason, detail: string): Routed {
  const clipped = detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS - 3)}...` : detail;
  const headers = copyHeaders(record);
  headers[HEADERS.reason] = Buffer.from(reason);
  headers[HEADERS.detail] = Buffer.from(clipped);
  headers[HEADERS.sourceTopic] = Buffer.from(record.topic);
  headers[HEADERS.sourcePartition] = Buffer.from(String(record.partition));
  headers[HEADERS.sourceOffset] = Buffer.from(String(record.offset));
  const out: OutRecord = { topic: topics.dlq, partition: record.partition, key: record.key, value: record.value, headers };
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
    return deadLetter(record, topics, 'invalid_field', `canonical re-encoding failed: ${describe(error)}`);
  }
  const out: OutRecord = { topic: topics.valid, partition: record.partition, key: record.key, value, headers: copyHeaders(record) };
  const timestamp = outTimestamp(record);
  if (timestamp !== undefined) out.timestamp = timestamp;
  return { out, outcome: { kind: 'valid', version: decoded.version } };
}

/** The output record alone (see routeRecord for the outcome as well). */
export function route(record: InRecord, topics: OutputTopics): OutRecord {
  return routeRecord(record, topics).out;
}
