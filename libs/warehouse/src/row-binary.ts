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

import { encodeRowBinaryInsert, rowBinaryColumns } from './row-binary-insert';

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

/**
 * Encodes positional rows as RowBinary (test doubles of a warehouse, and the parser's own tests):
 * the insert encoder's writer, with the columns named by position ('0', '1', ...: an array's keys),
 * so that the format is written in one place. Its checks hold here too: a value the type cannot
 * carry exactly (a number for a String, a fraction, out of range) throws, naming row and column.
 */
export function encodeRowBinary(
  types: readonly RowBinaryType[],
  rows: readonly (readonly (number | string)[])[],
): Buffer {
  const columns = rowBinaryColumns(
    'positional rows',
    types.map((type, i) => ({ name: String(i), type, default_type: '' })),
  );
  return encodeRowBinaryInsert('positional rows', columns, rows).body;
}
