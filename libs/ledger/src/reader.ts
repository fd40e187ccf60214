/** Reads a ledger file back as LedgerRows, batch by batch (async, for millions of rows) or all at once. */

import * as fs from 'fs';
import { RecordBatchReader, type RecordBatch } from 'apache-arrow';
import { LedgerRowSchema, type LedgerRow } from '@clickstream/contracts';
import { batchToRows, checkSchema } from './columns';

export interface LedgerReadOptions {
  /** Validate every row with LedgerRowSchema (default true); a bad row throws naming its seq and field. */
  validate?: boolean;
}

function toRows(batch: RecordBatch, file: string, validate: boolean): LedgerRow[] {
  checkSchema(batch.schema);
  const raw = batchToRows(batch);
  if (!validate) return raw as LedgerRow[];
  return raw.map((r) => {
    const parsed = LedgerRowSchema.safeParse(r);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `ledger ${file}: row seq=${String(r['seq'])} is invalid: ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? parsed.error.message}`,
      );
    }
    return parsed.data;
  });
}

/** The rows of the ledger, one Arrow batch at a time (memory stays at one batch). */
export async function* iterateLedgerBatches(
  file: string,
  opts: LedgerReadOptions = {},
): AsyncGenerator<LedgerRow[]> {
  const reader = await RecordBatchReader.from(fs.createReadStream(file));
  await reader.open();
  if (reader.schema) checkSchema(reader.schema);
  for await (const batch of reader) yield toRows(batch, file, opts.validate ?? true);
}

/** The rows of the ledger one by one, in file order (the writer's order: seq order for the generator). */
export async function* iterateLedger(
  file: string,
  opts: LedgerReadOptions = {},
): AsyncGenerator<LedgerRow> {
  for await (const rows of iterateLedgerBatches(file, opts)) yield* rows;
}

/** Every row of the ledger in memory (fine up to a few million rows). */
export async function readLedger(file: string, opts: LedgerReadOptions = {}): Promise<LedgerRow[]> {
  const out: LedgerRow[] = [];
  for await (const rows of iterateLedgerBatches(file, opts)) {
    for (const row of rows) out.push(row);
  }
  return out;
}

/** Synchronous variant for tests and small ledgers: reads the whole file into memory. */
export function readLedgerSync(file: string, opts: LedgerReadOptions = {}): LedgerRow[] {
  const reader = RecordBatchReader.from(fs.readFileSync(file));
  reader.open();
  if (reader.schema) checkSchema(reader.schema);
  const out: LedgerRow[] = [];
  for (const batch of reader) {
    for (const row of toRows(batch, file, opts.validate ?? true)) out.push(row);
  }
  return out;
}
