/** Integration and benchmark harness of the Flink jobs: unique topics and tables, seeded events with duplicates, job submission through submit.sh, and an exactness check of events.clean. */

import { execFile } from 'child_process';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { EVENT_TYPES, HEADERS, encodeEvent, type ClickEvent } from '@clickstream/contracts';
import {
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  readTopic,
  type InRecord,
  type KafkaClientOptions,
  type OutRecord,
} from '@clickstream/kafka-tx';
import {
  clusterOptions as stackOptions,
  localBootstrap,
  produceAcked,
  repoRoot,
  retry,
  sleep,
  uniqueId,
  waitForValue,
} from '@clickstream/test-support';

const run = promisify(execFile);

export const BOOTSTRAP = localBootstrap();
export const FLINK_REST = process.env.FLINK_REST ?? 'http://127.0.0.1:8081';
export const PARTITIONS = 6;

export function clusterOptions(clientId: string): KafkaClientOptions {
  return stackOptions(clientId);
}

export { repoRoot, retry, sleep };

/** Names of everything one test run creates, unique so that parallel runs never meet. */
export interface CleanRun {
  id: string;
  jobName: string;
  valid: string;
  clean: string;
  icebergTable: string;
  /** The table's directory in the Hadoop-catalog warehouse. */
  tableDir: string;
  checkpointDir: string;
}

export function freshRun(label: string): CleanRun {
  const id = uniqueId(label);
  const icebergTable = `clean_${id.replace(/[^a-z0-9]/g, '_')}`;
  const root = repoRoot();
  return {
    id,
    jobName: `clean-test-${id}`,
    valid: `flink-test.${id}.valid`,
    clean: `flink-test.${id}.clean`,
    icebergTable,
    tableDir: path.join(root, '.run/iceberg/warehouse/clickstream', icebergTable),
    checkpointDir: path.join(root, '.run/flink/checkpoints', `clean-test-${id}`),
  };
}

export async function createRunTopics(r: CleanRun): Promise<void> {
  await retry('creating topics', () =>
    createTopics(
      clusterOptions('flink-test-admin'),
      [r.valid, r.clean].map((topic) => ({ topic, partitions: PARTITIONS })),
    ),
  );
}

/** Seeded PRNG (mulberry32): the same seed gives the same events, duplicates and order. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sampleEvent(
  seq: number,
  runId: string,
  now: number,
  rand: () => number,
): ClickEvent {
  const type = EVENT_TYPES[seq % EVENT_TYPES.length] as ClickEvent['event_type'];
  const withProduct = type !== 'page_view';
  return {
    event_id: randomUUID(),
    seq,
    run_id: runId,
    event_type: type,
    event_time: now - Math.floor(rand() * 2000),
    session_id: `sess-${Math.floor(rand() * 200)}`,
    user_id: rand() < 0.5 ? null : `user-${Math.floor(rand() * 1000)}`,
    page: `/p/${seq % 50}`,
    product_id: withProduct ? `prod-${seq % 97}` : null,
    quantity: withProduct ? 1 + (seq % 3) : null,
    amount_cents: type === 'payment_succeeded' ? 100 + (seq % 10000) : null,
    currency: type === 'payment_succeeded' ? 'EUR' : null,
    device: 'mobile',
    ingest_time: now,
  };
}

/** The valid-topic records of one seeded run: `distinct` events by seq, and every send including duplicates. */
export interface Seeded {
  runId: string;
  distinct: Map<number, OutRecord>;
  sends: OutRecord[];
}

/**
 * `count` distinct events from seq `firstSeq`; about `dupRate` of them are sent again, byte for byte, 1 to 3 more
 * times, up to `maxDupDistance` sends later (so copies straddle checkpoints), on any partition.
 */
export function seedValid(
  topic: string,
  runId: string,
  seed: number,
  firstSeq: number,
  count: number,
  dupRate = 0.2,
  maxDupDistance = 500,
): Seeded {
  const rand = prng(seed);
  const distinct = new Map<number, OutRecord>();
  const sends: OutRecord[] = [];
  const later: { at: number; record: OutRecord }[] = [];
  const now = Date.now();
  for (let seq = firstSeq; seq < firstSeq + count; seq++) {
    const event = sampleEvent(seq, runId, now, rand);
    const record: OutRecord = {
      topic,
      partition: Math.floor(rand() * PARTITIONS),
      key: event.session_id,
      value: encodeEvent(event),
      headers: { [HEADERS.seq]: String(seq), [HEADERS.runId]: runId },
    };
    distinct.set(seq, record);
    sends.push(record);
    if (rand() < dupRate) {
      const copies = 1 + Math.floor(rand() * 3);
      for (let c = 0; c < copies; c++) {
        later.push({
          at: sends.length + Math.floor(rand() * maxDupDistance),
          record: { ...record, partition: Math.floor(rand() * PARTITIONS) },
        });
      }
    }
    for (let i = later.length - 1; i >= 0; i--) {
      const due = later[i];
      if (due && due.at <= sends.length) {
        sends.push(due.record);
        later.splice(i, 1);
      }
    }
  }
  for (const l of later) sends.push(l.record);
  return { runId, distinct, sends };
}

/** Produces through kafka-tx's idempotent producer and fails if any send was not acknowledged. */
export async function produce(records: OutRecord[], chunk = 2000): Promise<void> {
  await produceAcked(
    () => createIdempotentProducer(clusterOptions('flink-test-producer')),
    records,
    chunk,
  );
}

/** Produces `sends` in `slices` parts a second apart, so that they reach several of the job's 1 s checkpoints. */
export async function produceInSlices(sends: OutRecord[], slices: number): Promise<void> {
  for (let i = 0; i < slices; i++) {
    await produce(
      sends.slice(
        Math.floor((i * sends.length) / slices),
        Math.floor(((i + 1) * sends.length) / slices),
      ),
    );
    await sleep(1000);
  }
}

/** Submits the clean job for this run through infra/flink/submit.sh (REST only); resolves to the job id. */
export async function submitClean(r: CleanRun, extraArgs: string[] = []): Promise<string> {
  const args = [
    path.join(repoRoot(), 'infra/flink/submit.sh'),
    'clean',
    '--job-name',
    r.jobName,
    '--valid-topic',
    r.valid,
    '--clean-topic',
    r.clean,
    '--iceberg-table',
    r.icebergTable,
    '--parallelism',
    process.env.FLINK_TEST_PARALLELISM ?? '1',
    '--starting-offsets',
    'earliest',
    ...extraArgs,
  ];
  const { stdout } = await run('bash', args, { timeout: 300000 });
  const jobId = stdout.trim().split('\n').pop() ?? '';
  if (!/^[0-9a-f]{32}$/.test(jobId)) throw new Error(`submit.sh printed no job id: ${stdout}`);
  return jobId;
}

/** Cancels every live job of this run (checkpoints are retained on cancel) and waits until they have ended. */
export async function cancelJob(jobName: string): Promise<void> {
  await run('bash', [path.join(repoRoot(), 'infra/flink/submit.sh'), '--cancel', jobName], {
    timeout: 180000,
  });
}

export async function jobState(jobId: string): Promise<string> {
  const res = await fetch(`${FLINK_REST}/jobs/${jobId}`);
  if (!res.ok) throw new Error(`GET /jobs/${jobId}: HTTP ${res.status}`);
  return ((await res.json()) as { state: string }).state;
}

/** Deletes the run's topics, Iceberg table directory and checkpoints. */
export async function dropRun(r: CleanRun): Promise<void> {
  await retry('deleting topics', () =>
    deleteTopics(clusterOptions('flink-test-admin'), [r.valid, r.clean]),
  );
  fs.rmSync(r.tableDir, { recursive: true, force: true });
  fs.rmSync(r.checkpointDir, { recursive: true, force: true });
}

/** Polls `probe` until `done` holds for its value; returns the last value, or throws after timeoutMs. */
export function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs: number,
  everyMs = 2000,
): Promise<T> {
  return waitForValue(what, probe, done, timeoutMs, everyMs);
}

/** Every record of a topic up to its end offsets, retried on errors. */
export function readAll(
  topic: string,
  isolation: 'read_committed' | 'read_uncommitted',
): Promise<InRecord[]> {
  return retry(`reading ${topic} (${isolation})`, () =>
    readTopic({ ...clusterOptions('flink-test-reader'), topic, isolation }),
  );
}

/** Evidence of how events.clean differs from the distinct events: a pure function of the two. */
export interface CleanEvidence {
  expected: number;
  observed: number;
  missing: number[];
  duplicated: number[];
  unexpected: number[];
  /** Seqs whose key, value or headers differ from the first copy sent. */
  altered: number[];
}

export function compareClean(distinct: Map<number, OutRecord>, records: InRecord[]): CleanEvidence {
  const counts = new Map<number, number>();
  const unexpected: number[] = [];
  const altered: number[] = [];
  for (const r of records) {
    const seq = Number(r.headers[HEADERS.seq]?.toString());
    const sent = distinct.get(seq);
    if (!sent) {
      unexpected.push(seq);
      continue;
    }
    counts.set(seq, (counts.get(seq) ?? 0) + 1);
    const same =
      Buffer.compare(r.value ?? Buffer.alloc(0), sent.value ?? Buffer.alloc(0)) === 0 &&
      r.key?.toString() === String(sent.key) &&
      r.headers[HEADERS.runId]?.toString() === String(sent.headers?.[HEADERS.runId]);
    if (!same) altered.push(seq);
  }
  const missing = [...distinct.keys()].filter((s) => !counts.has(s));
  const duplicated = [...counts].filter(([, n]) => n > 1).map(([s]) => s);
  return {
    expected: distinct.size,
    observed: records.length,
    missing,
    duplicated,
    unexpected,
    altered,
  };
}

/** The first few of each kind, for a readable failure message. */
export function summarize(e: CleanEvidence): object {
  return {
    expected: e.expected,
    observed: e.observed,
    missing: { n: e.missing.length, first: e.missing.slice(0, 5) },
    duplicated: { n: e.duplicated.length, first: e.duplicated.slice(0, 5) },
    unexpected: { n: e.unexpected.length, first: e.unexpected.slice(0, 5) },
    altered: { n: e.altered.length, first: e.altered.slice(0, 5) },
  };
}

/** What `summarize` gives when events.clean holds each of `n` distinct events once, unaltered. */
export function exactSummary(n: number): object {
  return summarize({
    expected: n,
    observed: n,
    missing: [],
    duplicated: [],
    unexpected: [],
    altered: [],
  });
}
