/** Wire format of agg.windows and agg.sessions values: Avro single-object encoding, like events, decoded without throwing. */

import * as fs from 'fs';
import * as path from 'path';
import { Type } from 'avsc';
import { crc64AvroBytes } from '../event/crc64';
import { SINGLE_OBJECT_HEADER_BYTES, SINGLE_OBJECT_MAGIC } from '../event/wire';
import {
  SessionAggregateSchema,
  WindowAggregateSchema,
  type SessionAggregate,
  type WindowAggregate,
} from './types';

export type AggregateDecodeResult<T> = { ok: true; value: T } | { ok: false; detail: string };

/** Works from src (ts-jest) and from dist (the build copies src/aggregate/schemas to dist/aggregate/schemas). */
export const AGGREGATE_SCHEMA_DIR = path.join(__dirname, 'schemas');

interface AggregateCodec {
  schema: object;
  type: Type;
  header: Buffer;
  fingerprint: Buffer;
}

function load(file: string): AggregateCodec {
  const schema = JSON.parse(
    fs.readFileSync(path.join(AGGREGATE_SCHEMA_DIR, file), 'utf8'),
  ) as object;
  const type = Type.forSchema(structuredClone(schema) as Parameters<typeof Type.forSchema>[0]);
  const fingerprint = crc64AvroBytes(JSON.stringify(type.schema()));
  return {
    schema: Object.freeze(schema),
    type,
    fingerprint,
    header: Buffer.concat([SINGLE_OBJECT_MAGIC, fingerprint]),
  };
}

const WINDOW = load('window-aggregate-v1.avsc');
const SESSION = load('session-aggregate-v1.avsc');

export function windowAggregateFingerprint(): Buffer {
  return Buffer.from(WINDOW.fingerprint);
}
export function sessionAggregateFingerprint(): Buffer {
  return Buffer.from(SESSION.fingerprint);
}
export function windowAggregateSchema(): object {
  return WINDOW.schema;
}
export function sessionAggregateSchema(): object {
  return SESSION.schema;
}

function encode(codec: AggregateCodec, value: object, name: string): Buffer {
  if (!codec.type.isValid(value)) {
    const paths: string[] = [];
    codec.type.isValid(value, { errorHook: (p) => paths.push(p.join('.')) });
    throw new TypeError(`${name} does not fit its schema: bad field(s) ${paths.join(', ')}`);
  }
  return Buffer.concat([codec.header, codec.type.toBuffer(value)]);
}

export function encodeWindowAggregate(row: WindowAggregate): Buffer {
  return encode(WINDOW, row, 'window aggregate');
}
export function encodeSessionAggregate(row: SessionAggregate): Buffer {
  return encode(SESSION, row, 'session aggregate');
}

function decode<T>(
  codec: AggregateCodec,
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { message: string } };
  },
  bytes: Buffer | null | undefined,
): AggregateDecodeResult<T> {
  if (!bytes || bytes.length === 0) return { ok: false, detail: 'no value' };
  if (bytes.length < SINGLE_OBJECT_HEADER_BYTES)
    return { ok: false, detail: `${bytes.length} bytes, shorter than the single-object header` };
  if (
    bytes.compare(codec.header, 0, SINGLE_OBJECT_HEADER_BYTES, 0, SINGLE_OBJECT_HEADER_BYTES) !== 0
  )
    return {
      ok: false,
      detail: `header ${bytes.subarray(0, SINGLE_OBJECT_HEADER_BYTES).toString('hex')}, expected ${codec.header.toString('hex')}`,
    };
  let decoded: { value: unknown; offset: number };
  try {
    decoded = codec.type.decode(bytes, SINGLE_OBJECT_HEADER_BYTES);
  } catch (err) {
    return {
      ok: false,
      detail: `body does not decode: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  if (decoded.offset < 0) return { ok: false, detail: 'truncated body' };
  if (decoded.offset < bytes.length)
    return { ok: false, detail: `${bytes.length - decoded.offset} trailing bytes` };
  const parsed = schema.safeParse({ ...(decoded.value as object) });
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, detail: `breaks the aggregate schema: ${parsed.error.message}` };
}

/** Never throws. */
export function decodeWindowAggregate(
  bytes: Buffer | null | undefined,
): AggregateDecodeResult<WindowAggregate> {
  try {
    return decode(WINDOW, WindowAggregateSchema, bytes);
  } catch (err) {
    return { ok: false, detail: `unexpected decode failure: ${String(err)}` };
  }
}

/** Never throws. */
export function decodeSessionAggregate(
  bytes: Buffer | null | undefined,
): AggregateDecodeResult<SessionAggregate> {
  try {
    return decode(SESSION, SessionAggregateSchema, bytes);
  } catch (err) {
    return { ok: false, detail: `unexpected decode failure: ${String(err)}` };
  }
}
