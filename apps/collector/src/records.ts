/** Turns a request body into the records the collector carries to clickstream.raw, or a refusal. Pure: no I/O. */

import {
  FRAMES_CONTENT_TYPE,
  CANONICAL_VERSION,
  HEADERS,
  SINGLE_OBJECT_MAGIC,
  decodeFrames,
  readSingleObjectLabels,
  encodeEvent,
  schemaOf,
  formatSeqHeader,
  parseSeqHeader,
  splitSingleObjects,
  type ClickEvent,
} from '@clickstream/contracts';
import { refused, type Refused } from './errors';
import { derivedEventId } from './event-id';

/** One record for clickstream.raw: the bytes as they will be stored, its partition key and headers. */
export interface CarriedRecord {
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
}

export type ParseResult = { ok: true; records: CarriedRecord[] } | Refused;

export interface BodyLimits {
  maxEvents: number;
  /** Largest single record carried (Kafka's message.max.bytes is 1 MiB); the contract's own limit stays in the gatekeeper. */
  maxRecordBytes: number;
}

/** Labels a client may set on a single record (request headers, or frame meta). */
export interface ClientLabels {
  seq?: string;
  runId?: string;
}

const AVRO_TYPES = new Set([
  'application/avro',
  'avro/binary',
  'application/vnd.apache.avro+binary',
]);
/** Types whose body is sniffed: JSON when it starts with [ or {, Avro when it starts with C3 01. */
const SNIFFED_TYPES = new Set(['', 'text/plain', 'application/octet-stream']);
const JSON_TYPES = new Set(['application/json', 'application/x-ndjson-array']);
const RUN_ID = /^[\x21-\x7e]{1,200}$/;
interface SchemaField {
  name: string;
  type: unknown;
}
/** The canonical schema's fields in order, and whether each is nullable (a JSON event may leave those out). */
const FIELDS: readonly { name: string; nullable: boolean }[] = (
  schemaOf(CANONICAL_VERSION) as { fields: SchemaField[] }
).fields.map((f) => ({ name: f.name, nullable: Array.isArray(f.type) && f.type.includes('null') }));

/** The media type without parameters, lowercased ('' when absent). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function firstNonSpace(body: Buffer): number | undefined {
  for (const b of body) if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return b;
  return undefined;
}

function looksLikeJson(body: Buffer): boolean {
  const b = firstNonSpace(body);
  return b === 0x5b || b === 0x7b; // [ or {
}

function looksLikeAvro(body: Buffer): boolean {
  return (
    body.length >= 2 && body[0] === SINGLE_OBJECT_MAGIC[0] && body[1] === SINGLE_OBJECT_MAGIC[1]
  );
}

export function parseBody(
  contentType: string,
  body: Buffer,
  limits: BodyLimits,
  labels: ClientLabels = {},
): ParseResult {
  if (body.length === 0)
    return refused('no_events', 'empty body: send a JSON array of events, or Avro');
  const type = mediaType(contentType);
  if (type === FRAMES_CONTENT_TYPE) return parseFrames(body, limits);
  if (JSON_TYPES.has(type)) return parseJson(body.toString('utf8'), limits);
  if (AVRO_TYPES.has(type)) {
    if (!looksLikeAvro(body))
      return refused(
        'not_json_or_avro',
        `Content-Type ${type} but the body does not start with the Avro single-object marker C3 01`,
      );
    return parseAvro(body, limits, labels);
  }
  if (SNIFFED_TYPES.has(type)) {
    if (looksLikeJson(body)) return parseJson(body.toString('utf8'), limits);
    if (looksLikeAvro(body)) return parseAvro(body, limits, labels);
    return refused(
      'not_json_or_avro',
      'the body is neither JSON (starting with [ or {) nor Avro single-object encoding (starting with C3 01)',
    );
  }
  return refused(
    'unsupported_media_type',
    `Content-Type ${JSON.stringify(type)} is not read here: use application/json, text/plain (beacons), application/avro or ${FRAMES_CONTENT_TYPE}`,
  );
}

/** Parses JSON text (a beacon's query parameter, or a body): an array of events or one event. */
export function parseJson(text: string, limits: BodyLimits): ParseResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return refused(
      'bad_json',
      `the body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  if (items.length === 0) return refused('no_events', 'an empty JSON array: no events to collect');
  if (items.length > limits.maxEvents)
    return refused(
      'too_many_events',
      `${items.length} events in one request; at most ${limits.maxEvents}`,
    );
  const records: CarriedRecord[] = [];
  for (const [i, item] of items.entries()) {
    const record = jsonRecord(item);
    if (record.value.length > limits.maxRecordBytes)
      return refused(
        'body_too_large',
        `event ${i} is ${record.value.length} bytes; at most ${limits.maxRecordBytes} per event`,
      );
    records.push(record);
  }
  return { ok: true, records };
}

/**
 * A JSON event as a record: Avro-encoded (canonical schema) when it fits the schema's types, with a
 * derived event_id when it has none; otherwise its JSON text unchanged, which the gatekeeper puts on
 * the DLQ (bad_magic). Contract rules (amounts, currencies, times) are the gatekeeper's, not checked here.
 */
export function jsonRecord(item: unknown): CarriedRecord {
  if (item === null || typeof item !== 'object' || Array.isArray(item))
    return { key: null, value: Buffer.from(JSON.stringify(item) ?? 'null'), headers: {} };
  const obj = item as Record<string, unknown>;
  const headers = labelsOf(obj.seq, obj.run_id);
  const key = typeof obj.session_id === 'string' ? obj.session_id : null;
  // A fresh object with the schema's fields in schema order: every event then has the same hidden
  // class, and avsc's generated checker and writer stay fast. Copying the parsed object and adding
  // the missing fields made a different shape per event: the whole JSON path cost 13-14 us of CPU
  // per event instead of 3.5-3.7 (bench/pure-path.ts, docs/MEASUREMENTS.md). Undeclared fields were
  // ignored by the encoder before and are left out now.
  const candidate: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const v = obj[field.name];
    candidate[field.name] = v === undefined && field.nullable ? null : v;
  }
  if (candidate.event_id === undefined) candidate.event_id = derivedEventId(obj);
  try {
    return { key, value: encodeEvent(candidate as unknown as ClickEvent), headers };
  } catch {
    return { key, value: Buffer.from(JSON.stringify(item)), headers };
  }
}

function labelsOf(seq: unknown, runId: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0)
    headers[HEADERS.seq] = formatSeqHeader(seq);
  if (typeof runId === 'string' && RUN_ID.test(runId)) headers[HEADERS.runId] = runId;
  return headers;
}

/** seq, run_id and session_id as the record itself says (contract not checked: poison by contract keeps its labels too). */
function avroLabels(bytes: Buffer): { key: string | null; headers: Record<string, string> } {
  const labels = readSingleObjectLabels(bytes);
  if (labels === null) return { key: null, headers: {} };
  return {
    key: typeof labels.session_id === 'string' ? labels.session_id : null,
    headers: labelsOf(labels.seq, labels.run_id),
  };
}

function checkLabels(labels: ClientLabels): Refused | null {
  if (labels.seq !== undefined && parseSeqHeader(labels.seq) === null)
    return refused(
      'bad_header',
      `${HEADERS.seq} ${JSON.stringify(labels.seq.slice(0, 40))} is not a non-negative decimal integer`,
    );
  if (labels.runId !== undefined && !RUN_ID.test(labels.runId))
    return refused('bad_header', `${HEADERS.runId} must be 1 to 200 printable ASCII characters`);
  return null;
}

function parseAvro(body: Buffer, limits: BodyLimits, labels: ClientLabels): ParseResult {
  const bad = checkLabels(labels);
  if (bad) return bad;
  const split = splitSingleObjects(body, limits.maxEvents);
  const values = split.rest.length > 0 ? [...split.records, split.rest] : split.records;
  if (
    split.rest.length > 0 &&
    split.records.length === limits.maxEvents &&
    looksLikeAvro(split.rest)
  )
    return refused('too_many_events', `more than ${limits.maxEvents} Avro records in one request`);
  const records: CarriedRecord[] = [];
  for (const [i, value] of values.entries()) {
    if (value.length > limits.maxRecordBytes)
      return refused(
        'body_too_large',
        `record ${i} is ${value.length} bytes; at most ${limits.maxRecordBytes} per record`,
      );
    const derived = avroLabels(value);
    const headers = { ...derived.headers };
    // Client labels name the one record of a single-record body (that is how poison keeps its seq).
    if (values.length === 1) {
      if (labels.seq !== undefined) headers[HEADERS.seq] = labels.seq;
      if (labels.runId !== undefined) headers[HEADERS.runId] = labels.runId;
    }
    records.push({ key: derived.key, value, headers });
  }
  return { ok: true, records };
}

function parseFrames(body: Buffer, limits: BodyLimits): ParseResult {
  const decoded = decodeFrames(body, limits.maxEvents);
  if (!decoded.ok) {
    if (decoded.detail.startsWith('more than'))
      return refused(
        'too_many_events',
        `${decoded.detail} in one request; at most ${limits.maxEvents}`,
      );
    return refused('bad_frames', decoded.detail);
  }
  if (decoded.frames.length === 0) return refused('no_events', 'a framed body without frames');
  const records: CarriedRecord[] = [];
  for (const [i, frame] of decoded.frames.entries()) {
    if (frame.value.length > limits.maxRecordBytes)
      return refused(
        'body_too_large',
        `frame ${i} is ${frame.value.length} bytes; at most ${limits.maxRecordBytes} per record`,
      );
    const names = Object.keys(frame.headers);
    const stray = names.find((n) => n !== HEADERS.seq && n !== HEADERS.runId);
    if (stray !== undefined)
      return refused(
        'bad_header',
        `frame ${i}: header ${JSON.stringify(stray)} is not allowed (only ${HEADERS.seq}, ${HEADERS.runId})`,
      );
    const bad = checkLabels({
      seq: frame.headers[HEADERS.seq],
      runId: frame.headers[HEADERS.runId],
    });
    if (bad) return refused(bad.refusal, `frame ${i}: ${bad.error}`);
    if (names.length > 0)
      records.push({ key: frame.key, value: frame.value, headers: frame.headers });
    else {
      const derived = avroLabels(frame.value);
      records.push({ key: frame.key ?? derived.key, value: frame.value, headers: derived.headers });
    }
  }
  return { ok: true, records };
}
