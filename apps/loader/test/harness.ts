/** Integration harness: unique topics and databases, a producer of encoded events and dead letters, and the built loader as a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { encodeEvent, formatSeqHeader, HEADERS, type ClickEvent } from '@clickstream/contracts';
import {
  createIdempotentProducer,
  type KafkaClientOptions,
  type OutRecord,
} from '@clickstream/kafka-tx';
import { createWarehouse, TABLES, type Warehouse } from '@clickstream/warehouse';
import { localBootstrap } from '@clickstream/test-support';

export const BOOTSTRAP = localBootstrap();
export const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123';
const MAIN = join(__dirname, '..', 'dist', 'main.js');

const noop = (): void => undefined;
export const quietLogger = { debug: noop, info: noop, warn: noop, error: noop };
export const kafka: KafkaClientOptions = {
  bootstrap: BOOTSTRAP,
  clientId: 'loader-int',
  logger: quietLogger,
};

export function uniqueId(): string {
  return `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

export function openWarehouse(database: string, url = CLICKHOUSE_URL): Warehouse {
  return createWarehouse({ url, database, logger: quietLogger, requestTimeoutMs: 10_000 });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `check` every 200 ms until it returns true or the deadline passes; never asserts timing, only bounds the wait. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

export function makeEvent(runId: string, seq: number): ClickEvent {
  const now = Date.now();
  return {
    event_id: randomUUID(),
    seq,
    run_id: runId,
    event_type: 'page_view',
    event_time: now - 100,
    session_id: `s-${seq % 17}`,
    user_id: seq % 3 === 0 ? null : `u-${seq % 11}`,
    page: '/home',
    product_id: null,
    quantity: null,
    amount_cents: null,
    currency: null,
    device: 'desktop',
    ingest_time: now,
  };
}

function seqHeaders(runId: string, seq: number): Record<string, string> {
  return { [HEADERS.seq]: formatSeqHeader(seq), [HEADERS.runId]: runId };
}

export function validRecord(topic: string, e: ClickEvent): OutRecord {
  return {
    topic,
    key: e.session_id,
    value: encodeEvent(e),
    headers: seqHeaders(e.run_id, e.seq),
    timestamp: e.ingest_time ?? Date.now(),
  };
}

/** A dead letter as the gatekeeper writes it: original bytes, reason, source position. */
export function dlqRecord(topic: string, runId: string, seq: number): OutRecord {
  return {
    topic,
    key: null,
    value: Buffer.from([0x00, 0xff, seq % 256, 0x27, 0x5c]),
    headers: {
      ...seqHeaders(runId, seq),
      [HEADERS.reason]: 'bad_magic',
      [HEADERS.detail]: `starts with 00ff, seq ${seq}`,
      [HEADERS.sourceTopic]: 'clickstream.raw',
      [HEADERS.sourcePartition]: String(seq % 3),
      [HEADERS.sourceOffset]: String(1000 + seq),
    },
  };
}

/** Produces every record with the idempotent producer and fails on any negative delivery report. */
export async function produceAll(records: OutRecord[]): Promise<void> {
  const producer = await createIdempotentProducer(kafka);
  try {
    const reports = await producer.send(records);
    const bad = reports.filter((r) => !r.ok);
    if (bad.length > 0)
      throw new Error(`${bad.length} records not delivered, first: ${bad[0]?.error ?? '?'}`);
  } finally {
    await producer.close();
  }
}

export interface LoaderProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `node apps/loader/dist/main.js` with the given flags (metrics on a free port, no lag polling). */
export function startLoader(flags: string[]): LoaderProcess {
  const child = spawn(
    process.execPath,
    [MAIN, '--metrics-port', '0', '--lag-interval-ms', '0', '--log-level', 'info', ...flags],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const keep = (b: Buffer): void => {
    out = (out + b.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, output: () => out, exited };
}

export async function stopLoader(
  p: LoaderProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<number | null> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill(signal);
  return p.exited;
}

/** seq -> rows, read exactly (FINAL) or raw (every stored row, before merges). */
export function countsBySeq(
  wh: Warehouse,
  table: string,
  runId: string,
  final: boolean,
): Promise<Map<number, number>> {
  return wh
    .query<{ seq: number; n: number }>(
      `SELECT seq, count() AS n FROM ${table}${final ? ' FINAL' : ''} WHERE run_id = {run:String} GROUP BY seq`,
      { run: runId },
    )
    .then((rows) => new Map(rows.map((r) => [Number(r.seq), Number(r.n)])));
}

/** Missing and duplicated seqs of a table against the expected 0..n-1 (or the given list). */
export function exactness(
  counts: Map<number, number>,
  expected: number[],
): { missing: number[]; duplicated: number[]; unexpected: number[] } {
  const want = new Set(expected);
  return {
    missing: expected.filter((s) => !counts.has(s)),
    duplicated: [...counts].filter(([, n]) => n > 1).map(([s]) => s),
    unexpected: [...counts.keys()].filter((s) => !want.has(s)),
  };
}

export async function totalRows(wh: Warehouse, table: string, runId: string): Promise<number> {
  const [r] = await wh.query<{ n: number }>(
    `SELECT count() AS n FROM ${table} WHERE run_id = {run:String}`,
    { run: runId },
  );
  return Number(r?.n ?? 0);
}

export { TABLES };
