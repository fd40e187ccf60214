/**
 * Rows (plain objects keyed by column name) encoded as ClickHouse's RowBinary input, for INSERTs.
 * The column list and types come from the server (`DESCRIBE TABLE`), never from a copy of the DDL
 * here, and every value is checked against its column's type: a value RowBinary cannot carry
 * exactly (null in a non-Nullable column, a fraction, an integer out of its column's range, a
 * number in a String column) throws, naming table, row and column. It encodes a row in about 2.3 µs
 * of CPU against 4.0 for JSONEachRow, which it replaces, in less than half the bytes
 * (docs/MEASUREMENTS.md, "The loader's inserts in RowBinary instead of JSONEachRow").
 * @clickhouse/client inserts JSON, CSV, TSV and Parquet, not RowBinary.
 *
 * The format (the same in 18.16 and current ClickHouse): each row's columns in the INSERT's column
 * order, no framing; integers little-endian at their width; String a LEB128 length, then the UTF-8
 * bytes; Nullable(T) one byte (1 = NULL, and nothing follows; 0 = a T follows).
 */

/** A column as `DESCRIBE TABLE` gives it (the same three fields in 18.16 and current ClickHouse). */
export interface DescribedColumn {
  name: string;
  type: string;
  /** '' for an ordinary column; DEFAULT, MATERIALIZED or ALIAS. */
  default_type: string;
}

type Scalar =
  'String' | 'UInt8' | 'UInt16' | 'UInt32' | 'UInt64' | 'Int8' | 'Int16' | 'Int32' | 'Int64';

/** [min, max, width in bytes] of each type; the 64-bit ones take the safe integers of their sign. */
const RANGE: Record<Scalar, [number, number, number]> = {
  String: [0, 0, 0],
  UInt8: [0, 0xff, 1],
  UInt16: [0, 0xffff, 2],
  UInt32: [0, 0xffff_ffff, 4],
  UInt64: [0, Number.MAX_SAFE_INTEGER, 8],
  Int8: [-0x80, 0x7f, 1],
  Int16: [-0x8000, 0x7fff, 2],
  Int32: [-0x8000_0000, 0x7fff_ffff, 4],
  Int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 8],
};

const SCALARS = new Set<string>(Object.keys(RANGE));

/** A column that an INSERT may name, with what the encoder needs to write and check its values. */
export interface InsertColumn {
  name: string;
  type: string;
  scalar: Scalar;
  nullable: boolean;
  /** A DEFAULT column: in the INSERT only when the first row has it. */
  defaulted: boolean;
  /** Bytes of an integer type (0 for String), and its bounds as JS numbers can hold them exactly. */
  width: number;
  min: number;
  max: number;
}

/** The insertable columns of a described table (MATERIALIZED and ALIAS ones are not); throws on a type this encoder does not write. */
export function rowBinaryColumns(
  table: string,
  described: readonly DescribedColumn[],
): InsertColumn[] {
  const columns: InsertColumn[] = [];
  for (const c of described) {
    // MATERIALIZED and ALIAS columns cannot be inserted; the server computes them.
    if (c.default_type === 'MATERIALIZED' || c.default_type === 'ALIAS') continue;
    const inner = /^Nullable\((.*)\)$/.exec(c.type)?.[1];
    const scalar = inner ?? c.type;
    if (!SCALARS.has(scalar))
      throw new Error(
        `RowBinary insert into ${table}: column ${c.name} has type ${c.type}, which this encoder does not write ` +
          `(it writes ${[...SCALARS].join(', ')} and Nullable of each)`,
      );
    columns.push({
      name: c.name,
      type: c.type,
      scalar: scalar as Scalar,
      nullable: inner !== undefined,
      defaulted: c.default_type === 'DEFAULT',
      min: RANGE[scalar as Scalar][0],
      max: RANGE[scalar as Scalar][1],
      width: RANGE[scalar as Scalar][2],
    });
  }
  if (columns.length === 0)
    throw new Error(`RowBinary insert into ${table}: no insertable columns`);
  return columns;
}

/** A growable output buffer; allocated per insert, since two inserts may be in flight at once. */
class Out {
  buf: Buffer;
  pos = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}

function writeString(out: Out, s: string): void {
  const len = s.length;
  // A string of at most 42 UTF-16 units is at most 126 UTF-8 bytes: a one-byte length. Most of
  // ours are short and ASCII, copied here unit by unit (cheaper than a call into Buffer.write);
  // the first other unit hands the whole string to Buffer.write, which writes UTF-8.
  if (len <= 42) {
    out.ensure(1 + len * 3);
    const b = out.buf;
    const at = out.pos + 1;
    let i = 0;
    for (; i < len; i++) {
      const unit = s.charCodeAt(i);
      if (unit >= 0x80) break;
      b[at + i] = unit;
    }
    const n = i === len ? len : b.write(s, at, 'utf8');
    b[out.pos] = n;
    out.pos = at + n;
    return;
  }
  let n = Buffer.byteLength(s, 'utf8');
  out.ensure(5 + n);
  while (n >= 0x80) {
    out.buf[out.pos++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out.buf[out.pos++] = n;
  out.pos += out.buf.write(s, out.pos, 'utf8');
}

/** An integer of `width` bytes (1, 2, 4 or 8), little-endian, two's complement when negative; exact for any safe integer. */
function writeInt(out: Out, v: number, width: number): void {
  out.ensure(width);
  const b = out.buf;
  const at = out.pos;
  out.pos += width;
  if (width < 8) {
    // The low bytes of the two's complement; | 0 is exact below 2^31, >>> 0 for UInt32 above it.
    let x = v >= 0x8000_0000 ? v >>> 0 : v | 0;
    for (let i = 0; i < width; i++, x >>>= 8) b[at + i] = x & 0xff;
    return;
  }
  let lo = v % 0x1_0000_0000;
  let hi = (v - lo) / 0x1_0000_0000;
  if (lo < 0) {
    lo += 0x1_0000_0000;
    hi -= 1;
  }
  b[at] = lo & 0xff;
  b[at + 1] = (lo >>> 8) & 0xff;
  b[at + 2] = (lo >>> 16) & 0xff;
  b[at + 3] = lo >>> 24;
  b[at + 4] = hi & 0xff;
  b[at + 5] = (hi >> 8) & 0xff;
  b[at + 6] = (hi >> 16) & 0xff;
  b[at + 7] = (hi >> 24) & 0xff;
}

/** The type's default of an omitted ordinary column: NULL, '' or 0. */
function writeDefault(out: Out, c: InsertColumn): void {
  if (c.nullable) {
    out.ensure(1);
    out.buf[out.pos++] = 1;
  } else if (c.scalar === 'String') writeString(out, '');
  else writeInt(out, 0, c.width);
}

/** Why v cannot be written as the column's scalar (called only once the quick check has failed). */
function invalid(c: InsertColumn, v: unknown): string {
  if (c.scalar === 'String') return `expected a string, got ${typeof v}`;
  if (typeof v !== 'number')
    return `expected an integer number, got ${typeof v} ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`;
  if (!Number.isInteger(v)) return `expected an integer number, got ${v}`;
  if (c.scalar === 'Int64') return `${v} is beyond 2^53, not exact`;
  if (c.scalar === 'UInt64') return `${v} is not in 0..2^53-1`;
  return `${v} is out of ${c.scalar}'s range ${c.min}..${c.max}`;
}

/**
 * Encodes rows for `INSERT INTO <table> (<columns>) FORMAT RowBinary`, as JSONEachRow would store
 * them. A key set to undefined counts as absent (JSON.stringify leaves it out).
 * - An ordinary column a row does not have gets its type's default (NULL, '', 0), as JSONEachRow
 *   gives an omitted field.
 * - A DEFAULT column is in the column list when the first row has it; then every row must have
 *   it, and no row may have one that the first row lacks (RowBinary cannot leave a value to the
 *   server row by row in 18.16).
 * - A key that is no insertable column throws, as JSONEachRow does for an unknown field.
 * - Stricter than JSONEachRow: null in a column that is not Nullable throws.
 */
export function encodeRowBinaryInsert(
  table: string,
  columns: readonly InsertColumn[],
  rows: readonly object[],
): { columns: string[]; body: Buffer } {
  const first = rows[0] as Record<string, unknown> | undefined;
  if (first === undefined) return { columns: [], body: Buffer.alloc(0) };
  const chosen = columns.filter((c) => !c.defaulted || first[c.name] !== undefined);
  const inList = new Set(chosen.map((c) => c.name));
  const out = new Out(Math.max(4096, rows.length * chosen.length * 8));
  const fail = (r: number, what: string): Error =>
    new Error(`RowBinary insert into ${table}: row ${r}${what}`);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as Record<string, unknown>;
    for (const key in row)
      if (!inList.has(key) && row[key] !== undefined)
        throw fail(
          r,
          columns.some((c) => c.name === key)
            ? ` has ${key}, a DEFAULT column that row 0 does not have (the rows of one insert must agree on DEFAULT columns)`
            : ` has ${key}, which is no insertable column`,
        );
    for (let i = 0; i < chosen.length; i++) {
      const c = chosen[i] as InsertColumn;
      const v = row[c.name];
      if (v === undefined && c.defaulted)
        throw fail(
          r,
          ` has no ${c.name}, a DEFAULT column that row 0 has (the rows of one insert must agree on DEFAULT columns)`,
        );
      if (v === null || v === undefined) {
        if (v === null && !c.nullable)
          throw fail(r, `, column ${c.name} (${c.type}): null in a column that is not Nullable`);
        writeDefault(out, c);
        continue;
      }
      const ok =
        c.width === 0
          ? typeof v === 'string'
          : typeof v === 'number' && v >= c.min && v <= c.max && Number.isInteger(v);
      if (!ok) throw fail(r, `, column ${c.name} (${c.type}): ${invalid(c, v)}`);
      if (c.nullable) {
        out.ensure(1);
        out.buf[out.pos++] = 0;
      }
      if (c.width === 0) writeString(out, v as string);
      else writeInt(out, v as number, c.width);
    }
  }
  return { columns: chosen.map((c) => c.name), body: out.buf.subarray(0, out.pos) };
}
