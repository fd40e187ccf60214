/** The wire format of the event: Avro single-object encoding (C3 01, 8-byte fingerprint, body), decoded without ever throwing. */

import { walkAvro } from './avro-walk';
import type { RejectReason } from '../reasons';
import { schemaEntries, schemaEntry, type SchemaEntry } from './registry';
import { CANONICAL_VERSION, MAX_EVENT_BYTES, type ClickEvent, type SchemaVersion } from './types';
import { FAITHFUL_LONG_LIMIT, validateEvent } from './validate';

export type DecodeResult =
  | { ok: true; event: ClickEvent; version: SchemaVersion }
  | { ok: false; reason: RejectReason; detail: string };

export const SINGLE_OBJECT_MAGIC: Buffer = Buffer.from([0xc3, 0x01]);
/** Magic plus fingerprint. */
export const SINGLE_OBJECT_HEADER_BYTES = 10;

const HEADERS = new Map<SchemaVersion, Buffer>(
  schemaEntries().map((e) => [e.version, Buffer.concat([SINGLE_OBJECT_MAGIC, e.fingerprint])]),
);
// A short array beats a Map keyed by hex: no string is allocated per decode.
const BY_FINGERPRINT: readonly SchemaEntry[] = schemaEntries();

/** Safe to share: encoding is synchronous, and each worker thread loads its own copy of this module. */
const SCRATCH = Buffer.allocUnsafe(2 * MAX_EVENT_BYTES);

const LONG_FIELDS = ['seq', 'event_time', 'amount_cents', 'ingest_time'] as const;

/** 8-byte CRC-64-AVRO fingerprint of the version's Parsing Canonical Form, little-endian (a copy). */
export function fingerprintOf(version: SchemaVersion): Buffer {
  return Buffer.from(schemaEntry(version).fingerprint);
}

/** The .avsc file of the version as parsed JSON (deep-frozen). */
export function schemaOf(version: SchemaVersion): object {
  return schemaEntry(version).schema;
}

/**
 * Single-object encoding of the event with the given writer version (default canonical).
 * Writing v1 drops the v2 fields. Throws on a value that does not fit the schema: that is a bug
 * in the caller, not a per-record outcome (contract rules are NOT checked, so poison can be written).
 */
export function encodeEvent(event: ClickEvent, version: SchemaVersion = CANONICAL_VERSION): Buffer {
  const entry = schemaEntry(version);
  if (!entry.type.isValid(event)) {
    const paths: string[] = []; // second pass only on failure: no closure on the hot path
    entry.type.isValid(event, { errorHook: (path) => paths.push(path.join('.')) });
    throw new TypeError(`event does not fit schema v${version}: bad field(s) ${paths.join(', ')}`);
  }
  for (const field of LONG_FIELDS) {
    const n = event[field];
    if (typeof n === 'number' && n < -FAITHFUL_LONG_LIMIT) {
      throw new RangeError(
        `${field} ${n} is below -2^52, which avsc 5.7.9 would encode as a positive number`,
      );
    }
  }
  const header = HEADERS.get(version) as Buffer;
  // Encode into one reused scratch buffer, then make a single exact-size copy: one allocation per event.
  header.copy(SCRATCH, 0);
  const end = entry.type.encode(event, SCRATCH, SINGLE_OBJECT_HEADER_BYTES);
  if (end < 0) return Buffer.concat([header, entry.type.toBuffer(event)]); // larger than the scratch
  return Buffer.from(SCRATCH.subarray(0, end));
}

function reject(reason: RejectReason, detail: string): DecodeResult {
  return { ok: false, reason, detail };
}

function findEntry(bytes: Buffer): SchemaEntry | undefined {
  for (const entry of BY_FINGERPRINT) {
    if (bytes.compare(entry.fingerprint, 0, 8, 2, SINGLE_OBJECT_HEADER_BYTES) === 0) return entry;
  }
  return undefined;
}

/** avsc returns a record instance; callers get a plain object in the canonical shape. */
function toClickEvent(v: ClickEvent): ClickEvent {
  return {
    event_id: v.event_id,
    seq: v.seq,
    run_id: v.run_id,
    event_type: v.event_type,
    event_time: v.event_time,
    session_id: v.session_id,
    user_id: v.user_id,
    page: v.page,
    product_id: v.product_id,
    quantity: v.quantity,
    amount_cents: v.amount_cents,
    currency: v.currency,
    device: v.device ?? null,
    ingest_time: v.ingest_time ?? null,
  };
}

/**
 * Names what is wrong with a body avsc could not read. avsc says only "ran out of bytes" or throws;
 * a negative or overlong length, an overlong varint or a bad union or enum index also read as
 * running out. The independent walk of the writer schema tells the two apart.
 */
const INT_MAX = 2147483647;
const INT_MIN = -2147483648;

function classifyBody(bytes: Buffer, entry: SchemaEntry, avscSays: string): DecodeResult {
  const walk = walkAvro(entry.schema, bytes, SINGLE_OBJECT_HEADER_BYTES);
  if (!walk.ok) {
    return reject(
      walk.kind === 'truncated' ? 'truncated' : 'malformed_body',
      `v${entry.version} body: ${walk.detail} (${bytes.length} bytes)`,
    );
  }
  return reject('malformed_body', `v${entry.version} body does not decode: ${avscSays}`);
}

function decodeBody(bytes: Buffer, entry: SchemaEntry, ingestTime: number): DecodeResult {
  const canonical =
    entry.toCanonical === undefined ? entry.type : schemaEntry(CANONICAL_VERSION).type;
  let decoded: { value: unknown; offset: number };
  try {
    decoded = canonical.decode(bytes, SINGLE_OBJECT_HEADER_BYTES, entry.toCanonical);
  } catch (err) {
    return classifyBody(bytes, entry, err instanceof Error ? err.message : String(err));
  }
  if (decoded.offset < 0) return classifyBody(bytes, entry, 'ends before the record does');
  const event = toClickEvent(decoded.value as ClickEvent);
  // avsc reads an Avro int as any varint; the spec's int is 32 bits (quantity is the only one).
  // Checked before trailing bytes: a misread int is why bytes would be left over.
  if (event.quantity !== null && (event.quantity > INT_MAX || event.quantity < INT_MIN)) {
    return reject(
      'malformed_body',
      `v${entry.version} body: quantity ${event.quantity} does not fit an Avro int`,
    );
  }
  if (decoded.offset < bytes.length) {
    return reject(
      'trailing_bytes',
      `${bytes.length - decoded.offset} bytes after a complete v${entry.version} record`,
    );
  }
  const valid = validateEvent(event, ingestTime);
  return valid.ok ? { ok: true, event, version: entry.version } : valid;
}

/** The single-object header checked: the body's bytes and its schema, or why not. */
function framed(input: unknown): { bytes: Buffer; entry: SchemaEntry } | DecodeResult {
  if (input === null || input === undefined) return reject('empty', 'no value');
  if (!(input instanceof Uint8Array))
    return reject('bad_magic', `value is a ${typeof input}, not bytes`);
  const bytes = Buffer.isBuffer(input)
    ? input
    : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (bytes.length === 0) return reject('empty', 'zero-length value');
  if (bytes.length > MAX_EVENT_BYTES)
    return reject('oversized', `${bytes.length} bytes > MAX_EVENT_BYTES ${MAX_EVENT_BYTES}`);
  if (bytes[0] !== 0xc3 || (bytes.length > 1 && bytes[1] !== 0x01)) {
    return reject(
      'bad_magic',
      `starts with ${bytes.subarray(0, 2).toString('hex')}, expected c301`,
    );
  }
  if (bytes.length < SINGLE_OBJECT_HEADER_BYTES) {
    return reject(
      'truncated',
      `${bytes.length} bytes, shorter than the ${SINGLE_OBJECT_HEADER_BYTES}-byte single-object header`,
    );
  }
  const entry = findEntry(bytes);
  if (!entry) {
    return reject(
      'unknown_fingerprint',
      `fingerprint ${bytes.subarray(2, SINGLE_OBJECT_HEADER_BYTES).toString('hex')} is not a released schema version`,
    );
  }
  return { bytes, entry };
}

function decodeChecked(input: unknown, ingestTime: number): DecodeResult {
  const f = framed(input);
  return 'ok' in f ? f : decodeBody(f.bytes, f.entry, ingestTime);
}

/**
 * Decodes and validates one raw value. Never throws: every input yields the event (canonical
 * shape; v1 data gets device = null, ingest_time = null) or a reason from REJECT_REASONS.
 * `ingestTime` (default Date.now()) is what event_time is compared with for absurd_event_time.
 */
export function decodeEvent(
  bytes: Buffer | null | undefined,
  opts?: { ingestTime?: number },
): DecodeResult {
  try {
    return decodeChecked(bytes, opts?.ingestTime ?? Date.now());
  } catch (err) {
    // Unreachable by design; kept so that a bug here becomes a DLQ record, not a crashed gatekeeper.
    return reject(
      'malformed_body',
      `unexpected decode failure: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

export type IngestTimeResult =
  | { ok: true; ingestTime: number | null; version: SchemaVersion }
  | Extract<DecodeResult, { ok: false }>;

/**
 * The ingest_time of an event value, without building the rest (for readers of events.valid that
 * need only it, like the reconciler): the header is checked as decodeEvent checks it, then avsc
 * reads the body with a one-field reader schema, skipping every other field. A body it reads to its
 * exact end gives its ingest_time, with no further check: the skip does not look at what it skips
 * (enum and union indexes, the int range, the contract rules), so whether the event is valid stays
 * decodeEvent's question. Any other body (short, long, unreadable) is decoded in full by
 * decodeEvent, so a failure has decodeEvent's reason. Never throws; ingestTime is null for a
 * version without it (v1) or a null one.
 */
export function readIngestTime(bytes: Buffer | null | undefined): IngestTimeResult {
  const f = framed(bytes);
  if ('ok' in f) return f as IngestTimeResult;
  const { type, resolver } = f.entry.ingestTime;
  try {
    const d = type.decode(f.bytes, SINGLE_OBJECT_HEADER_BYTES, resolver);
    if (d.offset === f.bytes.length) {
      const t = (d.value as { ingest_time: number | null }).ingest_time;
      return { ok: true, ingestTime: t ?? null, version: f.entry.version };
    }
  } catch {
    // decodeEvent below says what is wrong.
  }
  const full = decodeEvent(f.bytes);
  return full.ok
    ? { ok: true, ingestTime: full.event.ingest_time ?? null, version: full.version }
    : full;
}
