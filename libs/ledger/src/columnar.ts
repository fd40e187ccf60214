/**
 * The columnar reader of a ledger file: each Arrow batch as typed arrays, for checkers that read
 * millions of sends (the row reader builds and zod-validates an object per send, about 11 s per
 * million; a checker that needs a few columns as numbers reads well under a second per million).
 */

import * as fs from 'fs';
import { TextDecoder } from 'util';
import { RecordBatchReader, type Data, type RecordBatch } from 'apache-arrow';
import type { LedgerRow } from '@clickstream/contracts';
import { COLUMNS, LEDGER_COLUMNS } from './columns';

/** Code of a null value in `codes()`. */
export const NULL_CODE = -1;
/** Code of a value that is not in the column's closed list (a ledger written by someone else). */
export const UNKNOWN_CODE = -2;

/** Columns stored as text. */
export type StringColumn = 'run_id' | 'event_id' | 'session_id' | 'key' | 'delivery_error';
/** Columns stored as integers (int32, int64) or timestamps (ms). */
export type NumberColumn =
  | 'seq'
  | 'event_time'
  | 'amount_cents'
  | 'schema_version'
  | 'send_time'
  | 'duplicate_of'
  | 'partition'
  | 'offset';
/** Closed-list columns (dictionary-encoded). */
export type CodeColumn =
  'event_type' | 'fault' | 'expected_fate' | 'expected_reason' | 'expected_timeliness' | 'delivery';

type Family = 'string' | 'number' | 'code';
const FAMILY = {
  utf8: 'string',
  int32: 'number',
  int64: 'number',
  timestamp: 'number',
  dict: 'code',
} as const;
const FAMILY_OF = new Map<string, Family>(COLUMNS.map((c) => [c.name, FAMILY[c.kind]]));

function isValid(d: Data, i: number): boolean {
  if (d.nullCount === 0 || !d.nullBitmap || d.nullBitmap.length === 0) return true;
  const j = d.offset + i;
  return (((d.nullBitmap[j >> 3] as number) >> (j & 7)) & 1) === 1;
}

/** One record batch of a ledger; each column is decoded only when asked for. */
export class LedgerColumns {
  readonly length: number;

  constructor(
    private readonly batch: RecordBatch,
    private readonly decoder: TextDecoder,
  ) {
    this.length = batch.numRows;
  }

  private data(name: keyof LedgerRow, family: Family): Data {
    // The unions above and COLUMNS must agree; a mismatch is a bug here, not a bad file.
    if (FAMILY_OF.get(name) !== family)
      throw new TypeError(`ledger column ${name} is not a ${family} column`);
    return this.batch.data.children[LEDGER_COLUMNS.indexOf(name)] as Data;
  }

  /** A text column as strings, null where null. */
  strings(name: StringColumn): (string | null)[] {
    const d = this.data(name, 'string');
    const offsets = d.valueOffsets as Int32Array;
    const bytes = d.values as Uint8Array;
    const n = this.length;
    const out = new Array<string | null>(n);
    // A value equal to the one before (run_id on every row) reuses its string: no decode.
    let prevStart = -1;
    let prevEnd = -1;
    let prev = '';
    for (let i = 0; i < n; i++) {
      if (!isValid(d, i)) {
        out[i] = null;
        continue;
      }
      const j = d.offset + i;
      const start = offsets[j] as number;
      const end = offsets[j + 1] as number;
      if (
        prevStart >= 0 &&
        end - start === prevEnd - prevStart &&
        sameBytes(bytes, start, prevStart, end - start)
      ) {
        out[i] = prev;
      } else {
        prev = this.decoder.decode(bytes.subarray(start, end));
        out[i] = prev;
      }
      prevStart = start;
      prevEnd = end;
    }
    return out;
  }

  /** 1 where a text column holds a non-empty value, 0 where it is null or empty (nothing decoded). */
  present(name: StringColumn): Uint8Array {
    const d = this.data(name, 'string');
    const offsets = d.valueOffsets as Int32Array;
    const n = this.length;
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const j = d.offset + i;
      out[i] = isValid(d, i) && (offsets[j + 1] as number) > (offsets[j] as number) ? 1 : 0;
    }
    return out;
  }

  /** A numeric column as numbers (64-bit values are below 2^53 in a ledger), `ifNull` where null. */
  numbers(name: NumberColumn, ifNull: number): Float64Array {
    const d = this.data(name, 'number');
    const values = d.values as ArrayLike<number | bigint>;
    const n = this.length;
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++)
      out[i] = isValid(d, i) ? Number(values[d.offset + i] as number | bigint) : ifNull;
    return out;
  }

  /**
   * A closed-list column as codes: `code` is called once per dictionary entry (not per row) and
   * its answer is given for every row holding that entry; NULL_CODE where null. The default code
   * is the entry's index in `list`, UNKNOWN_CODE when it is not in the list.
   */
  codes(
    name: CodeColumn,
    list: readonly string[],
    code: (value: string) => number = (v) => indexIn(list, v),
  ): Int32Array {
    const d = this.data(name, 'code');
    const dictionary = (d.dictionary?.toArray() ?? []) as string[];
    const byIndex = dictionary.map(code);
    const indices = d.values as ArrayLike<number>;
    const n = this.length;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++)
      out[i] = isValid(d, i)
        ? (byIndex[indices[d.offset + i] as number] ?? UNKNOWN_CODE)
        : NULL_CODE;
    return out;
  }
}

function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (bytes[a + k] !== bytes[b + k]) return false;
  return true;
}

function indexIn(list: readonly string[], value: string): number {
  const at = list.indexOf(value);
  return at < 0 ? UNKNOWN_CODE : at;
}

/** The batches of a ledger file in file order (memory stays at one batch); throws when the file's columns are not the ledger's. */
export interface ColumnarReadOptions {
  /**
   * Called, instead of throwing, when the file ends inside a batch after its schema (a writer killed
   * mid-write): the batches before the cut have been yielded, and iteration ends there.
   */
  onCutTail?: (detail: string) => void;
}

export async function* iterateLedgerColumns(
  file: string,
  opts: ColumnarReadOptions = {},
): AsyncGenerator<LedgerColumns> {
  const reader = await RecordBatchReader.from(fs.createReadStream(file));
  await reader.open();
  const names = reader.schema?.fields.map((f) => f.name) ?? [];
  if (names.join(',') !== LEDGER_COLUMNS.join(',')) {
    throw new Error(
      `${file} is not a ledger file: columns ${names.join(', ')}; expected ${LEDGER_COLUMNS.join(', ')}`,
    );
  }
  const decoder = new TextDecoder();
  if (opts.onCutTail === undefined) {
    for await (const batch of reader) yield new LedgerColumns(batch, decoder);
    return;
  }
  let rows = 0;
  const it = reader[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<RecordBatch>;
    try {
      next = await it.next();
    } catch (err) {
      opts.onCutTail(
        `${file} ends inside a batch after ${rows} row(s): ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    if (next.done === true) return;
    rows += next.value.numRows;
    yield new LedgerColumns(next.value, decoder);
  }
}
