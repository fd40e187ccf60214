/** Streams ledger rows to an Arrow IPC stream file in batches, so a run of millions of sends never holds them all in memory. */

import * as fs from 'fs';
import * as path from 'path';
import { pipeline } from 'stream/promises';
import { RecordBatchStreamWriter } from 'apache-arrow';
import { LedgerRowSchema, type LedgerRow } from '@clickstream/contracts';
import { LEDGER_SCHEMA, rowsToBatch } from './columns';

export interface LedgerWriterOptions {
  /** Rows per Arrow record batch (default 65,536). */
  batchRows?: number;
  /** Validate every row with LedgerRowSchema before it is written (default true; about 0.5 µs a row). */
  validate?: boolean;
  /**
   * Also write the buffered rows as a batch this often (ms; default 1000; 0 = only by row count),
   * so that a writer killed mid-run leaves at most this much of its tail unwritten.
   */
  flushEveryMs?: number;
}

export interface LedgerWriteResult {
  path: string;
  rows: number;
}

/**
 * Writes an Arrow IPC *stream* (not the footer-terminated file format) on purpose: if the writer
 * dies mid-run, every batch written so far stays readable.
 */
export class LedgerWriter {
  private buffer: LedgerRow[] = [];
  private written = 0;
  private closed = false;
  private failure: unknown = undefined;
  private readonly timer: NodeJS.Timeout | undefined;

  private constructor(
    readonly path: string,
    private readonly arrow: RecordBatchStreamWriter,
    private readonly done: Promise<void>,
    private readonly batchRows: number,
    private readonly validate: boolean,
    flushEveryMs: number,
  ) {
    done.catch((err: unknown) => {
      this.failure = err;
    });
    if (flushEveryMs > 0) {
      this.timer = setInterval(() => {
        if (!this.closed && this.failure === undefined) this.writeBuffer();
      }, flushEveryMs);
      // The timer never keeps a process alive on its own.
      this.timer.unref();
    }
  }

  /** Creates (or truncates) the file, creating its directory, and writes the schema. */
  static open(file: string, opts: LedgerWriterOptions = {}): LedgerWriter {
    const batchRows = opts.batchRows ?? 65_536;
    if (!Number.isInteger(batchRows) || batchRows < 1)
      throw new RangeError(`batchRows must be a positive integer, got ${batchRows}`);
    const flushEveryMs = opts.flushEveryMs ?? 1000;
    if (!Number.isInteger(flushEveryMs) || flushEveryMs < 0)
      throw new RangeError(`flushEveryMs must be a whole number of ms, got ${flushEveryMs}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const arrow = new RecordBatchStreamWriter();
    const done = pipeline(arrow.toNodeStream(), fs.createWriteStream(file));
    // Writing the schema up front makes a ledger with zero rows a valid, readable file.
    arrow.reset(undefined, LEDGER_SCHEMA);
    return new LedgerWriter(file, arrow, done, batchRows, opts.validate ?? true, flushEveryMs);
  }

  /** Rows accepted so far (buffered or written). */
  get rows(): number {
    return this.written + this.buffer.length;
  }

  /** Buffers one row; throws if the row breaks LedgerRowSchema (a bug in the caller) or the writer failed. */
  append(row: LedgerRow): void {
    if (this.closed) throw new Error(`ledger ${this.path} is closed`);
    if (this.failure !== undefined) throw this.failure;
    this.buffer.push(this.validate ? LedgerRowSchema.parse(row) : row);
    if (this.buffer.length >= this.batchRows) this.writeBuffer();
  }

  appendAll(rows: Iterable<LedgerRow>): void {
    for (const row of rows) this.append(row);
  }

  private writeBuffer(): void {
    if (this.buffer.length === 0) return;
    this.arrow.write(rowsToBatch(this.buffer));
    this.written += this.buffer.length;
    this.buffer = [];
  }

  /** Writes the buffered rows and the end-of-stream marker, and waits until the file is on disk. */
  async close(): Promise<LedgerWriteResult> {
    if (!this.closed) {
      this.closed = true;
      clearInterval(this.timer);
      this.writeBuffer();
      await this.arrow.close();
    }
    await this.done;
    return { path: this.path, rows: this.written };
  }
}

/** Writes all rows to a new ledger file. */
export async function writeLedger(
  file: string,
  rows: Iterable<LedgerRow> | AsyncIterable<LedgerRow>,
  opts?: LedgerWriterOptions,
): Promise<LedgerWriteResult> {
  const writer = LedgerWriter.open(file, opts);
  try {
    for await (const row of rows) writer.append(row);
  } finally {
    await writer.close();
  }
  return { path: file, rows: writer.rows };
}
