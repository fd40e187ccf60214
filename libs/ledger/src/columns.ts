/** The Arrow schema of the ledger and the conversion between LedgerRow objects and Arrow record batches. */

import {
  Data,
  Dictionary,
  Field,
  Int32,
  Int64,
  Int8,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  TimestampMillisecond,
  Utf8,
  vectorFromArray,
  type DataType,
  type Vector,
} from 'apache-arrow';
import {
  DELIVERY_STATUSES,
  EVENT_TYPES,
  FAULT_KINDS,
  REJECT_REASONS,
  type LedgerRow,
} from '@clickstream/contracts';

type Key = keyof LedgerRow;

/**
 * How one LedgerRow field is stored. Closed lists (event types, faults, reasons, ...) are
 * dictionary-encoded with a fixed dictionary, so the file stays small and every batch shares
 * one dictionary (written once per stream).
 */
type Column =
  | { name: Key; kind: 'utf8' }
  | { name: Key; kind: 'int32' }
  | { name: Key; kind: 'int64' }
  | { name: Key; kind: 'timestamp' }
  | {
      name: Key;
      kind: 'dict';
      values: readonly string[];
      dictionary: Vector<Utf8>;
      type: Dictionary<Utf8, Int8>;
    };

let nextDictionaryId = 0;
function dict(name: Key, values: readonly string[]): Column {
  return {
    name,
    kind: 'dict',
    values,
    dictionary: vectorFromArray([...values], new Utf8()),
    type: new Dictionary(new Utf8(), new Int8(), nextDictionaryId++, false),
  };
}

/** Column order of the file; the names are exactly the LedgerRow keys. */
export const COLUMNS: readonly Column[] = [
  { name: 'run_id', kind: 'utf8' },
  { name: 'seq', kind: 'int64' },
  { name: 'event_id', kind: 'utf8' },
  dict('event_type', EVENT_TYPES),
  { name: 'session_id', kind: 'utf8' },
  { name: 'key', kind: 'utf8' },
  { name: 'event_time', kind: 'timestamp' },
  { name: 'amount_cents', kind: 'int64' },
  { name: 'schema_version', kind: 'int32' },
  { name: 'send_time', kind: 'timestamp' },
  dict('fault', FAULT_KINDS),
  { name: 'duplicate_of', kind: 'int64' },
  dict('expected_fate', ['valid', 'poison']),
  dict('expected_reason', REJECT_REASONS),
  dict('expected_timeliness', ['on_time', 'late']),
  dict('delivery', DELIVERY_STATUSES),
  { name: 'partition', kind: 'int32' },
  { name: 'offset', kind: 'int64' },
  { name: 'delivery_error', kind: 'utf8' },
];

export const LEDGER_COLUMNS: readonly string[] = COLUMNS.map((c) => c.name);

function arrowType(c: Column): DataType {
  switch (c.kind) {
    case 'utf8':
      return new Utf8();
    case 'int32':
      return new Int32();
    case 'int64':
      return new Int64();
    case 'timestamp':
      return new TimestampMillisecond();
    case 'dict':
      return c.type;
  }
}

/** Every column nullable in Arrow: the row schema (zod) is what decides which nulls are allowed. */
export const LEDGER_SCHEMA = new Schema(COLUMNS.map((c) => new Field(c.name, arrowType(c), true)));

function validity(rows: readonly LedgerRow[], name: Key): { bitmap: Uint8Array; nulls: number } {
  const bitmap = new Uint8Array(Math.ceil(rows.length / 8));
  let nulls = 0;
  for (let i = 0; i < rows.length; i++) {
    if (rows[i]![name] === null) nulls++;
    else bitmap[i >> 3]! |= 1 << (i & 7);
  }
  return { bitmap, nulls };
}

function columnData(c: Column, rows: readonly LedgerRow[]): Data {
  const length = rows.length;
  const { bitmap, nulls } = validity(rows, c.name);
  if (c.kind === 'utf8') return utf8Data(rows, c.name, nulls > 0 ? bitmap : undefined, nulls);
  const nullCount = nulls;
  const nullBitmap = nulls > 0 ? bitmap : undefined;
  if (c.kind === 'dict') {
    const indices = new Int8Array(length);
    for (let i = 0; i < length; i++) {
      const v = rows[i]![c.name] as string | null;
      if (v === null) continue;
      const at = c.values.indexOf(v);
      if (at < 0)
        throw new RangeError(
          `ledger column ${c.name}: ${JSON.stringify(v)} is not one of ${c.values.join(', ')}`,
        );
      indices[i] = at;
    }
    return makeData({
      type: c.type,
      length,
      nullCount,
      nullBitmap,
      data: indices,
      dictionary: c.dictionary,
    });
  }
  if (c.kind === 'int32') {
    const data = new Int32Array(length);
    for (let i = 0; i < length; i++) data[i] = (rows[i]![c.name] as number | null) ?? 0;
    return makeData({ type: new Int32(), length, nullCount, nullBitmap, data });
  }
  const data = new BigInt64Array(length);
  for (let i = 0; i < length; i++) {
    const v = rows[i]![c.name] as number | null;
    if (v !== null) data[i] = BigInt(v);
  }
  if (c.kind === 'int64')
    return makeData({ type: new Int64(), length, nullCount, nullBitmap, data });
  return makeData({ type: new TimestampMillisecond(), length, nullCount, nullBitmap, data });
}

/** A utf8 column written straight into one buffer (apache-arrow's builder was a fifth of the generator's CPU). */
function utf8Data(
  rows: readonly LedgerRow[],
  name: Key,
  nullBitmap: Uint8Array | undefined,
  nullCount: number,
): Data {
  const length = rows.length;
  const valueOffsets = new Int32Array(length + 1);
  let total = 0;
  for (let i = 0; i < length; i++) {
    const v = rows[i]![name] as string | null;
    if (v !== null) total += Buffer.byteLength(v, 'utf8');
    valueOffsets[i + 1] = total;
  }
  const data = new Uint8Array(total);
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  for (let i = 0; i < length; i++) {
    const v = rows[i]![name] as string | null;
    if (v !== null) view.write(v, valueOffsets[i]!, 'utf8');
  }
  return makeData({ type: new Utf8(), length, nullCount, nullBitmap, valueOffsets, data });
}

/** One record batch of the given rows (rows must already be valid LedgerRows). */
export function rowsToBatch(rows: readonly LedgerRow[]): RecordBatch {
  const children = COLUMNS.map((c) => columnData(c, rows));
  const data = makeData({
    type: new Struct(LEDGER_SCHEMA.fields),
    length: rows.length,
    nullCount: 0,
    children,
  });
  return new RecordBatch(LEDGER_SCHEMA, data);
}

function isValid(d: Data, i: number): boolean {
  if (d.nullCount === 0 || !d.nullBitmap || d.nullBitmap.length === 0) return true;
  const j = d.offset + i;
  return ((d.nullBitmap[j >> 3]! >> (j & 7)) & 1) === 1;
}

/** Reads one column of a batch into plain JS values (null where the bitmap says so). */
function readColumn(c: Column, d: Data, length: number): (string | number | null)[] {
  const out = new Array<string | number | null>(length);
  if (c.kind === 'utf8') {
    const offsets = d.valueOffsets as Int32Array;
    const bytes = d.values as Uint8Array;
    const decoder = new TextDecoder();
    for (let i = 0; i < length; i++) {
      if (!isValid(d, i)) {
        out[i] = null;
        continue;
      }
      const j = d.offset + i;
      out[i] = decoder.decode(bytes.subarray(offsets[j]!, offsets[j + 1]!));
    }
    return out;
  }
  if (c.kind === 'dict') {
    const dictionary = (d.dictionary?.toArray() ?? []) as string[];
    const indices = d.values as ArrayLike<number>;
    for (let i = 0; i < length; i++)
      out[i] = isValid(d, i) ? (dictionary[indices[d.offset + i]!] ?? null) : null;
    return out;
  }
  const values = d.values as ArrayLike<number | bigint>;
  for (let i = 0; i < length; i++) out[i] = isValid(d, i) ? Number(values[d.offset + i]!) : null;
  return out;
}

/** Checks a file's schema against the ledger's, naming the first difference. */
export function checkSchema(schema: Schema): void {
  const names = schema.fields.map((f) => f.name);
  for (let i = 0; i < COLUMNS.length; i++) {
    const c = COLUMNS[i]!;
    if (names[i] !== c.name) {
      throw new Error(
        `not a ledger file: column ${i} is ${JSON.stringify(names[i])}, expected ${JSON.stringify(c.name)} (columns: ${names.join(', ')})`,
      );
    }
  }
  if (names.length !== COLUMNS.length)
    throw new Error(`not a ledger file: ${names.length} columns, expected ${COLUMNS.length}`);
}

/** The rows of one batch as LedgerRow-shaped objects (not yet validated). */
export function batchToRows(batch: RecordBatch): Record<string, unknown>[] {
  const length = batch.numRows;
  const columns = COLUMNS.map((c, i) => readColumn(c, batch.data.children[i] as Data, length));
  const rows = new Array<Record<string, unknown>>(length);
  for (let r = 0; r < length; r++) {
    const row: Record<string, unknown> = {};
    for (let k = 0; k < COLUMNS.length; k++) row[COLUMNS[k]!.name] = columns[k]![r];
    rows[r] = row;
  }
  return rows;
}
