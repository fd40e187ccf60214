/**
 * scanTopic: a bounded read of one topic that hands each record to a visitor instead of returning
 * them all, through the compiled topic reader (apps/topic-reader, franz-go) when its path is given,
 * or through readTopic otherwise. Both read the same offsets (readRanges) in the same order
 * (partition order, then offset order) and give the same records.
 */
import { spawn } from 'node:child_process';
import { readRanges, readTopicRanges, type ReadRanges, type TopicReadOptions } from './offsets';
import type { InRecord } from './types';

/** What a scan's visitor reads of each record. */
export interface ScanWant {
  /**
   * The header names the visitor reads. With the compiled reader only these reach it (the rest
   * are not decoded); readTopic gives every header.
   */
  headers: readonly string[];
  /** Whether the visitor reads values (null otherwise with the compiled reader). */
  values: boolean;
  /** Whether the visitor reads keys (null otherwise with the compiled reader). */
  keys?: boolean;
}

export interface ScanOptions extends TopicReadOptions, ScanWant {
  /** Path of the compiled topic reader; without it, readTopic reads. */
  readerPath?: string;
  /** The compiled reader fails when a partition makes no progress for this long (default 120 s, as readTopic). */
  stallTimeoutMs?: number;
}

export interface ScanResult {
  /** Records handed to the visitor. */
  records: number;
  /** Which reader read: 'compiled' (topic-reader) or 'node' (readTopic). */
  reader: 'compiled' | 'node';
  /** The offsets read, [begin, end) per partition. */
  ranges: ReadRanges;
}

/**
 * Hands every record of `o.topic` in its read ranges to `visit`, in partition order, then offset
 * order. With the compiled reader, a record's buffers are views into a shared chunk that is reused
 * after the visitor returns: copy (Buffer.from) any buffer kept beyond the call.
 */
export async function scanTopic(o: ScanOptions, visit: (r: InRecord) => void): Promise<ScanResult> {
  const ranges = await readRanges(o);
  if (o.readerPath === undefined) {
    const records = await readTopicRanges(o, ranges);
    for (const r of records) visit(r);
    return { records: records.length, reader: 'node', ranges };
  }
  const records = await runTopicReader(o, o.readerPath, ranges, visit);
  return { records, reader: 'compiled', ranges };
}

/** The reader's ranges, `partition:begin:end`: the non-empty partitions in partition order. */
function spansOf(ranges: ReadRanges): string[] {
  return [...ranges.end.keys()]
    .sort((x, y) => x - y)
    .map((p) => [p, ranges.begin.get(p) ?? 0, ranges.end.get(p) ?? 0] as const)
    .filter(([, b, e]) => e > b)
    .map(([p, b, e]) => `${p}:${b}:${e}`);
}

/** The reader's arguments for these ranges. */
export function topicReaderArgs(o: ScanOptions, ranges: ReadRanges): string[] {
  const spans = spansOf(ranges);
  for (const h of o.headers) {
    if (h === '' || h.includes(','))
      throw new Error(`kafka-tx: scanTopic: header name ${JSON.stringify(h)} cannot be passed`);
  }
  return [
    '-bootstrap',
    o.bootstrap,
    '-client-id',
    o.clientId,
    '-topic',
    o.topic,
    '-isolation',
    o.isolation ?? 'read_committed',
    '-stall-timeout-ms',
    String(o.stallTimeoutMs ?? 120000),
    ...(spans.length === 0 ? [] : ['-ranges', spans.join(',')]),
    ...(o.headers.length === 0 ? [] : ['-headers', o.headers.join(',')]),
    ...(o.values ? ['-values'] : []),
    ...(o.keys === true ? ['-keys'] : []),
  ];
}

const FRAME = { record: 1, partition: 2, done: 3 } as const;

/** Parses the reader's stream (apps/topic-reader/frame.go); pure over chunks, so it is unit-tested. */
export class FrameParser {
  private pending: Buffer | null = null;
  records = 0;
  doneTotal: number | null = null;
  /** Per partition frame, in order: [partition, records, end]. */
  readonly partitions: [number, number, number][] = [];

  /** The length-prefixed fields after a record's fixed part, in frame.go's order. */
  private readonly fields: number;

  constructor(
    private readonly topic: string,
    private readonly want: ScanWant,
    private readonly visit: (r: InRecord) => void,
  ) {
    this.fields = (want.keys === true ? 1 : 0) + want.headers.length + (want.values ? 1 : 0);
  }

  push(chunk: Buffer): void {
    const buf = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = null;
    let pos = 0;
    for (;;) {
      const used = this.frame(buf, pos);
      if (used === 0) break;
      pos += used;
    }
    // A partial frame waits for the next chunk (copied: the chunk is not ours to keep).
    if (pos < buf.length) this.pending = Buffer.from(buf.subarray(pos));
  }

  /** Bytes left over: a stream that ended with some was cut mid-frame. */
  get leftover(): number {
    return this.pending?.length ?? 0;
  }

  /** Parses one frame at pos; 0 when it is not complete yet. */
  private frame(b: Buffer, pos: number): number {
    if (pos >= b.length) return 0;
    const kind = b[pos];
    if (this.doneTotal !== null) throw new Error('topic-reader: bytes after the done frame');
    if (kind === FRAME.partition) {
      if (b.length - pos < 21) return 0;
      this.partitions.push([b.readInt32LE(pos + 1), int64(b, pos + 5), int64(b, pos + 13)]);
      return 21;
    }
    if (kind === FRAME.done) {
      if (b.length - pos < 9) return 0;
      this.doneTotal = int64(b, pos + 1);
      return 9;
    }
    if (kind !== FRAME.record) throw new Error(`topic-reader: unknown frame kind ${kind}`);
    let at = pos + 21;
    if (at > b.length) return 0;
    const fields: (Buffer | null)[] = [];
    while (fields.length < this.fields) {
      const f = field(b, at);
      if (f === undefined) return 0;
      fields.push(f.bytes);
      at = f.next;
    }
    let i = 0;
    const key = this.want.keys === true ? (fields[i++] ?? null) : null;
    const headers: Record<string, Buffer> = {};
    for (const name of this.want.headers) {
      const h = fields[i++];
      if (h !== null && h !== undefined) headers[name] = h;
    }
    const value = this.want.values ? (fields[i] ?? null) : null;
    this.records++;
    this.visit({
      topic: this.topic,
      partition: b.readInt32LE(pos + 1),
      offset: int64(b, pos + 5),
      key,
      value,
      headers,
      timestamp: int64(b, pos + 13),
    });
    return at - pos;
  }
}

/** A length-prefixed field at `at` (-1: null); undefined when the buffer ends first. */
function field(b: Buffer, at: number): { bytes: Buffer | null; next: number } | undefined {
  if (at + 4 > b.length) return undefined;
  const n = b.readInt32LE(at);
  if (n < 0) return { bytes: null, next: at + 4 };
  if (at + 4 + n > b.length) return undefined;
  return { bytes: b.subarray(at + 4, at + 4 + n), next: at + 4 + n };
}

function int64(b: Buffer, at: number): number {
  return b.readUInt32LE(at) + b.readInt32LE(at + 4) * 0x1_0000_0000;
}

/** Runs the compiled reader over the ranges; resolves with the record count once its stream checks out. */
export async function runTopicReader(
  o: ScanOptions,
  readerPath: string,
  ranges: ReadRanges,
  visit: (r: InRecord) => void,
): Promise<number> {
  const expected = spansOf(ranges);
  if (expected.length === 0) return 0;
  const args = topicReaderArgs(o, ranges);
  const child = spawn(readerPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s: string) => {
    stderr = (stderr + s).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal }));
    },
  );
  exited.catch(() => undefined); // awaited below; this only keeps an early spawn error handled
  const parser = new FrameParser(o.topic, o, visit);
  const why = (what: string): Error => {
    const last = stderr.trim().split('\n').pop() ?? '';
    return new Error(
      `kafka-tx: scanTopic ${o.topic}: ${what}${last === '' ? '' : `: ${last}`} (${readerPath})`,
    );
  };
  try {
    for await (const chunk of child.stdout) parser.push(chunk as Buffer);
  } catch (e) {
    child.kill('SIGTERM');
    await exited.catch(() => undefined);
    throw e;
  }
  let status: { code: number | null; signal: NodeJS.Signals | null };
  try {
    status = await exited;
  } catch (e) {
    throw why(`the topic reader did not start (${e instanceof Error ? e.message : String(e)})`);
  }
  if (status.code !== 0)
    throw why(`the topic reader exited with ${status.code ?? `signal ${status.signal}`}`);
  if (parser.doneTotal === null || parser.leftover > 0)
    throw why('the topic reader stream ended without its done frame');
  const got = parser.partitions.map(([p, , end]) => `${p}:${ranges.begin.get(p) ?? 0}:${end}`);
  const sum = parser.partitions.reduce((n, [, c]) => n + c, 0);
  if (got.join(',') !== expected.join(',') || sum !== parser.records)
    throw why(
      `the topic reader stream does not match its request (partitions ${got.join(',')} for ${expected.join(',')}, ${sum} counted for ${parser.records} parsed)`,
    );
  if (parser.doneTotal !== parser.records)
    throw why(`the topic reader counted ${parser.doneTotal} records, ${parser.records} parsed`);
  return parser.records;
}
