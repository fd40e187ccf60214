/** Integration harness: unique topics and databases, a producer of encoded events and dead letters, and the built loader as a child process. */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { encodeEvent, formatSeqHeader, HEADERS, type ClickEvent } from '@clickstream/contracts';
import {
  createIdempotentProducer,
  type KafkaClientOptions,
  type OutRecord,
} from '@clickstream/kafka-tx';
import { createWarehouse, TABLES, type Warehouse } from '@clickstream/warehouse';
import {
  exactlyOnceCounts,
  localBootstrap,
  NodeChild,
  produceAcked,
  samplePageView,
  uniqueId as sharedUniqueId,
  waitFor as sharedWaitFor,
} from '@clickstream/test-support';

export { sleep } from '@clickstream/test-support';

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

/** `<time>_<hex>`: unique, and a valid part of a ClickHouse identifier. */
export function uniqueId(): string {
  return sharedUniqueId('x').slice(2).replace('-', '_');
}

export function openWarehouse(database: string, url = CLICKHOUSE_URL): Warehouse {
  return createWarehouse({ url, database, logger: quietLogger, requestTimeoutMs: 10_000 });
}

/** Polls `check` every 200 ms until it returns true (a throw counts as not yet) or the deadline passes; never asserts timing, only bounds the wait. */
export function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 120_000,
): Promise<void> {
  return sharedWaitFor(what, check, timeoutMs, 200);
}

export function makeEvent(runId: string, seq: number): ClickEvent {
  const now = Date.now();
  return samplePageView(seq, runId, {
    event_time: now - 100,
    session_id: `s-${seq % 17}`,
    user_id: seq % 3 === 0 ? null : `u-${seq % 11}`,
    ingest_time: now,
  });
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
export function produceAll(records: OutRecord[]): Promise<void> {
  return produceAcked(() => createIdempotentProducer(kafka), records);
}

export interface LoaderProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `node apps/loader/dist/main.js` with the given flags (metrics on a free port, no lag polling). */
export function startLoader(flags: string[]): LoaderProcess {
  const loader = new NodeChild(
    MAIN,
    ['--metrics-port', '0', '--lag-interval-ms', '0', '--log-level', 'info', ...flags],
    { keepChars: 20_000 },
  );
  return {
    child: loader.child,
    output: () => loader.output(),
    exited: loader.exited.then((e) => e.code),
  };
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
  return exactlyOnceCounts(expected, counts);
}

export async function totalRows(wh: Warehouse, table: string, runId: string): Promise<number> {
  const [r] = await wh.query<{ n: number }>(
    `SELECT count() AS n FROM ${table} WHERE run_id = {run:String}`,
    { run: runId },
  );
  return Number(r?.n ?? 0);
}

export { TABLES };
