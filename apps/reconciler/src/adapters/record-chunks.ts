/**
 * Kafka records packed into transferable chunks, so that a worker thread can reduce a topic the
 * main thread reads (the Kafka client lives on the main thread only) with the very same reducer:
 * what a record holds (partition, offset, timestamp, key, value, the named headers) arrives
 * unchanged, null kept apart from empty.
 */

import type { InRecord } from '@clickstream/kafka-tx';

/** Length of an absent key, value or header. */
const ABSENT = -1;
/** partition (int32), offset and timestamp (float64: exact up to 2^53). */
const FIXED = 4 + 8 + 8;
const DEFAULT_CHUNK_BYTES = 1 << 20;

/** A full chunk: `bytes` of `buffer` hold whole records. */
export interface RecordChunk {
  buffer: ArrayBuffer;
  bytes: number;
  records: number;
}

/** Packs records one at a time; hands each full chunk to `flush` (which may transfer its buffer). */
export class RecordPacker {
  private buf: Buffer;
  private pos = 0;
  private count = 0;

  constructor(
    /** The headers kept, in this order; any other header is dropped. */
    private readonly headers: readonly string[],
    private readonly flush: (chunk: RecordChunk) => void,
    private readonly chunkBytes = DEFAULT_CHUNK_BYTES,
  ) {
    this.buf = this.fresh(chunkBytes);
  }

  private fresh(size: number): Buffer {
    return Buffer.from(new ArrayBuffer(size));
  }

  private sizeOf(r: InRecord): number {
    let n = FIXED + 8 + (r.key?.length ?? 0) + (r.value?.length ?? 0);
    for (const h of this.headers) n += 4 + (r.headers[h]?.length ?? 0);
    return n;
  }

  add(r: InRecord): void {
    const size = this.sizeOf(r);
    if (this.pos + size > this.buf.length) {
      this.end();
      if (size > this.buf.length) this.buf = this.fresh(size);
    }
    const b = this.buf;
    let at = b.writeInt32LE(r.partition, this.pos);
    at = b.writeDoubleLE(r.offset, at);
    at = b.writeDoubleLE(r.timestamp, at);
    at = put(b, at, r.key);
    at = put(b, at, r.value);
    for (const h of this.headers) at = put(b, at, r.headers[h] ?? null);
    this.pos = at;
    this.count++;
  }

  /** Flushes what is packed (nothing when empty); the packer goes on with a new chunk. */
  end(): void {
    if (this.count === 0) return;
    this.flush({ buffer: this.buf.buffer as ArrayBuffer, bytes: this.pos, records: this.count });
    this.buf = this.fresh(this.chunkBytes);
    this.pos = 0;
    this.count = 0;
  }
}

function put(b: Buffer, at: number, bytes: Buffer | null): number {
  if (bytes === null) return b.writeInt32LE(ABSENT, at);
  const next = b.writeInt32LE(bytes.length, at);
  b.set(bytes, next);
  return next + bytes.length;
}

/** Hands each record of a chunk to `visit`, with the headers of the packer; its buffers are views into the chunk. */
export function unpackRecords(
  chunk: RecordChunk,
  topic: string,
  headers: readonly string[],
  visit: (r: InRecord) => void,
): number {
  const b = Buffer.from(chunk.buffer, 0, chunk.bytes);
  let at = 0;
  let n = 0;
  const field = (): Buffer | null => {
    const len = b.readInt32LE(at);
    at += 4;
    if (len === ABSENT) return null;
    const out = b.subarray(at, at + len);
    at += len;
    return out;
  };
  while (at < chunk.bytes) {
    const partition = b.readInt32LE(at);
    const offset = b.readDoubleLE(at + 4);
    const timestamp = b.readDoubleLE(at + 12);
    at += FIXED;
    const key = field();
    const value = field();
    const hs: Record<string, Buffer> = {};
    for (const h of headers) {
      const v = field();
      if (v !== null) hs[h] = v;
    }
    visit({ topic, partition, offset, key, value, headers: hs, timestamp });
    n++;
  }
  if (n !== chunk.records)
    throw new Error(`record chunk holds ${n} record(s), ${chunk.records} were packed`);
  return n;
}
