/**
 * Reads a ledger file column by column straight into a LedgerIndex: the row reader of
 * @clickstream/ledger builds and zod-validates an object per send (about 11 s per million), while
 * the reconciler needs eight columns as numbers (well under a second per million).
 */

import * as fs from 'fs';
import { TextDecoder } from 'util';
import { RecordBatchReader, type Data, type RecordBatch } from 'apache-arrow';
import { DELIVERY_STATUSES, REJECT_REASONS } from '@clickstream/contracts';
import { LEDGER_COLUMNS } from '@clickstream/ledger';
import { DELIVERY, FATE, LedgerIndexBuilder, NO_REASON, reasonIndex, type LedgerIndex } from './core/ledger-index';

/** The columns the reconciler reads (names are LedgerRow keys). */
type Needed = 'run_id' | 'seq' | 'event_id' | 'fault' | 'duplicate_of' | 'expected_fate' | 'expected_reason' | 'delivery';

class Problems {
  count = 0;
  readonly examples: string[] = [];
  note(problem: string): void {
    if (this.count++ < 3) this.examples.push(problem);
  }
}

function valid(d: Data, i: number): boolean {
  if (d.nullCount === 0 || !d.nullBitmap || d.nullBitmap.length === 0) return true;
  const j = d.offset + i;
  return (((d.nullBitmap[j >> 3] as number) >> (j & 7)) & 1) === 1;
}

/** A utf8 column as strings (null where null). */
function strings(d: Data, n: number, decoder: TextDecoder): (string | null)[] {
  const offsets = d.valueOffsets as Int32Array;
  const bytes = d.values as Uint8Array;
  const out = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const j = d.offset + i;
    out[i] = valid(d, i) ? decoder.decode(bytes.subarray(offsets[j] as number, offsets[j + 1] as number)) : null;
  }
  return out;
}

/** A dictionary column mapped through `code` once per dictionary entry; `ifNull` where null. */
function codes(d: Data, n: number, code: (value: string) => number, ifNull: number): Int32Array {
  const dictionary = (d.dictionary?.toArray() ?? []) as string[];
  const byIndex = dictionary.map(code);
  const indices = d.values as ArrayLike<number>;
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = valid(d, i) ? (byIndex[indices[d.offset + i] as number] ?? -2) : ifNull;
  return out;
}

/** An int64 column as numbers, `ifNull` where null. */
function ints(d: Data, n: number, ifNull: number): Float64Array {
  const values = d.values as BigInt64Array;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = valid(d, i) ? Number(values[d.offset + i] as bigint) : ifNull;
  return out;
}

function addBatch(b: LedgerIndexBuilder, batch: RecordBatch, decoder: TextDecoder, problems: Problems): void {
  const n = batch.numRows;
  const col = (name: Needed): Data => batch.data.children[LEDGER_COLUMNS.indexOf(name)] as Data;
  const runIds = strings(col('run_id'), n, decoder);
  const eventIds = strings(col('event_id'), n, decoder);
  const seqs = ints(col('seq'), n, -1);
  const duplicateOf = ints(col('duplicate_of'), n, -1);
  const duplicate = codes(col('fault'), n, (v) => (v === 'duplicate' ? 1 : 0), 0);
  const fate = codes(col('expected_fate'), n, (v) => (v === 'valid' ? FATE.valid : v === 'poison' ? FATE.poison : -2), -2);
  const reason = codes(col('expected_reason'), n, (v) => ((REJECT_REASONS as readonly string[]).includes(v) ? reasonIndex(v) : -2), NO_REASON);
  const delivery = codes(col('delivery'), n, (v) => ((DELIVERY_STATUSES as readonly string[]).includes(v) ? DELIVERY[v as keyof typeof DELIVERY] : -2), -2);
  for (let i = 0; i < n; i++) {
    const f = fate[i] as number;
    const d = delivery[i] as number;
    const r = reason[i] as number;
    // The checks the reconciler depends on; the full row contract is zod's, in @clickstream/ledger.
    if (f < 0 || d < 0 || r === -2) problems.note(`seq ${seqs[i]}: unknown expected_fate, delivery or expected_reason`);
    if (f === FATE.poison && r === NO_REASON) problems.note(`seq ${seqs[i]}: poison without expected_reason`);
    const dup = duplicate[i] === 1 ? (duplicateOf[i] as number) : -1;
    if (duplicate[i] === 1 && dup < 0) problems.note(`seq ${seqs[i]}: duplicate without duplicate_of`);
    b.addSend(runIds[i] ?? '', seqs[i] as number, d < 0 ? DELIVERY.not_sent : d, f < 0 ? FATE.valid : f, r < 0 ? NO_REASON : r, dup, eventIds[i] ?? null);
  }
}

export async function readLedgerIndex(file: string, sizeHint: number): Promise<LedgerIndex> {
  const reader = await RecordBatchReader.from(fs.createReadStream(file));
  await reader.open();
  const names = reader.schema?.fields.map((f) => f.name) ?? [];
  if (names.join(',') !== LEDGER_COLUMNS.join(',')) {
    throw new Error(`${file} is not a ledger file: columns ${names.join(', ')}; expected ${LEDGER_COLUMNS.join(', ')}`);
  }
  const builder = new LedgerIndexBuilder(sizeHint);
  const decoder = new TextDecoder();
  const problems = new Problems();
  for await (const batch of reader) addBatch(builder, batch, decoder, problems);
  const index = builder.finish();
  if (problems.count > 0) index.problems.push(`${problems.count} bad ledger row(s), e.g. ${problems.examples.join('; ')}`);
  return index;
}
