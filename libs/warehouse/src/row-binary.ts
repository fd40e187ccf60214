/**
 * ClickHouse's RowBinary output, read row by row from the chunks of an HTTP response, for the few
 * column types our queries cast their columns to. A query that returns millions of rows (the
 * reconciler's read of a run) costs about half as much this way as in JSONEachRow, and builds no
 * object per row. @clickhouse/client parses JSON formats only; its RowBinary guide hands out code to
 * generate, not a reader to import.
 *
 * The format (the same in 18.16 and current ClickHouse): each row's columns in order, no framing;
 * integers little-endian at their width; String a LEB128 length, then the bytes.
 */

/** The column types a RowBinary query of ours may cast its columns to. */
export type RowBinaryType = 'Int64' | 'UInt64' | 'UInt32' | 'UInt8' | 'String';

/** 64-bit integers as JS numbers: exact below 2^53, as every value of ours is (seq, offsets, counts). */
function int64(b: Buffer, at: number): number {
  return b.readUInt32LE(at) + b.readInt32LE(at + 4) * 0x1_0000_0000;
}

function uint64(b: Buffer, at: number): number {
  return b.readUInt32LE(at) + b.readUInt32LE(at + 4) * 0x1_0000_0000;
}

const WIDTH: Record<Exclude<RowBinaryType, 'String'>, number> = {
  Int64: 8,
  UInt64: 8,
  UInt32: 4,
  UInt8: 1,
};

/**
 * Parses a stream of rows of the given column types; hands each row to `visit` as one reused array
 * of values (numbers, and strings for String columns), to be read during the call.
 */
export class RowBinaryRows {
  private pending: Buffer | null = null;
  rows = 0;
  private readonly values: (number | string)[];

  constructor(
    private readonly types: readonly RowBinaryType[],
    private readonly visit: (row: readonly (number | string)[]) => void,
  ) {
    this.values = types.map(() => 0);
  }

  push(chunk: Buffer): void {
    const b = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = null;
    let pos = 0;
    for (;;) {
      const next = this.row(b, pos);
      if (next < 0) break;
      pos = next;
    }
    if (pos < b.length) this.pending = Buffer.from(b.subarray(pos));
  }

  /** Throws when the stream ended inside a row. */
  end(): void {
    const left = this.pending?.length ?? 0;
    if (left > 0)
      throw new Error(
        `RowBinary: the response ended inside a row (${left} byte(s) after row ${this.rows})`,
      );
  }

  /** Parses the row at pos; where the next one starts, or -1 when this one is not complete yet. */
  private row(b: Buffer, pos: number): number {
    let at = pos;
    const values = this.values;
    for (let i = 0; i < this.types.length; i++) {
      const type = this.types[i] as RowBinaryType;
      if (type === 'String') {
        // LEB128 length: at most 5 bytes for any length a Buffer can hold.
        let len = 0;
        let shift = 0;
        for (;;) {
          if (at >= b.length) return -1;
          const byte = b[at++] as number;
          len += (byte & 0x7f) * 2 ** shift;
          if (byte < 0x80) break;
          shift += 7;
          if (shift > 28)
            throw new Error(`RowBinary: a string length longer than 5 bytes in row ${this.rows}`);
        }
        if (at + len > b.length) return -1;
        values[i] = len === 0 ? '' : b.toString('utf8', at, at + len);
        at += len;
        continue;
      }
      const width = WIDTH[type];
      if (at + width > b.length) return -1;
      values[i] =
        type === 'Int64'
          ? int64(b, at)
          : type === 'UInt64'
            ? uint64(b, at)
            : type === 'UInt32'
              ? b.readUInt32LE(at)
              : (b[at] as number);
      at += width;
    }
    this.rows++;
    this.visit(values);
    return at;
  }
}

/** Encodes rows as RowBinary (test doubles of a warehouse, and the parser's own tests). */
export function encodeRowBinary(
  types: readonly RowBinaryType[],
  rows: readonly (readonly (number | string)[])[],
): Buffer {
  const parts: Buffer[] = [];
  for (const row of rows) {
    types.forEach((type, i) => {
      const v = row[i];
      if (type === 'String') {
        const bytes = Buffer.from(String(v), 'utf8');
        const len: number[] = [];
        let n = bytes.length;
        do {
          len.push(n >= 0x80 ? (n & 0x7f) | 0x80 : n);
          n = Math.floor(n / 0x80);
        } while (n > 0);
        parts.push(Buffer.from(len), bytes);
        return;
      }
      const b = Buffer.alloc(WIDTH[type]);
      if (type === 'Int64') b.writeBigInt64LE(BigInt(v as number));
      else if (type === 'UInt64') b.writeBigUInt64LE(BigInt(v as number));
      else if (type === 'UInt32') b.writeUInt32LE(v as number);
      else b.writeUInt8(v as number);
      parts.push(b);
    });
  }
  return Buffer.concat(parts);
}
