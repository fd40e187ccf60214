/** Reads Iceberg's Avro files (manifest lists, manifests) with avsc, keeping 64-bit ids exact. */

import * as avro from 'avsc';

/**
 * avsc's default long throws on values beyond 2^53, and Iceberg snapshot ids are random 63-bit
 * longs: decode longs as numbers when safe and as bigint otherwise.
 */
const LONG = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer): number | bigint => {
    const n = buf.readBigInt64LE();
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(n)
      : n;
  },
  toBuffer: (n: number | bigint): Buffer => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (n: number | bigint): number | bigint => n,
  toJSON: (n: number | bigint): number => Number(n),
  isValid: (n: unknown): boolean =>
    typeof n === 'bigint' || (typeof n === 'number' && Number.isInteger(n)),
  compare: (a: number | bigint, b: number | bigint): number => (a < b ? -1 : a > b ? 1 : 0),
});

/** Type.forSchema with the exact long type; also used by tests to write fixtures. */
export function avroType(schema: avro.Schema): avro.Type {
  return avro.Type.forSchema(schema, {
    wrapUnions: false,
    typeHook: (s) =>
      s === 'long' ||
      (typeof s === 'object' &&
        (s as { type?: unknown; logicalType?: unknown }).type === 'long' &&
        !('logicalType' in s))
        ? LONG
        : undefined,
  });
}

/** Every record of an Avro object container file, decoded with its own writer schema. */
export function readAvroFile<T = Record<string, unknown>>(path: string): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const records: T[] = [];
    avro
      .createFileDecoder(path, {
        parseHook: (schema: avro.Schema) => avroType(schema),
      } as avro.DecoderOptions)
      .on('data', (r: T) => records.push(r))
      .on('error', reject)
      .on('end', () => resolve(records));
  });
}
