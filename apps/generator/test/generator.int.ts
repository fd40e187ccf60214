/**
 * A seeded live run into a fresh raw topic on the real 3-node cluster: every acknowledged send is in
 * the topic exactly once (by cs-seq), where the ledger says, with the bytes, key and timestamp the
 * ledger says; failed sends are absent or accounted for. Also runs the built CLI and stops it with SIGTERM.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { HEADERS, REJECT_REASONS, decodeEvent, type LedgerRow } from '@clickstream/contracts';
import {
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  readTopic,
  type InRecord,
  type KafkaClientOptions,
} from '@clickstream/kafka-tx';
import { iterateLedgerColumns, readLedgerSync, readManifest, runPaths } from '@clickstream/ledger';
import { kafkaSink } from '../src/kafka-sink';
import { run, type RunSummary } from '../src/run';
import { options, silentLogger } from './helpers';

const BOOTSTRAP =
  process.env['GENERATOR_IT_BOOTSTRAP'] ?? '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092';
const logger = silentLogger;
const client: KafkaClientOptions = { bootstrap: BOOTSTRAP, clientId: 'generator-it', logger };
const MAIN = path.join(__dirname, '..', 'dist', 'main.js');

let dir: string;
const topics: string[] = [];
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'generator-it-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  if (topics.length > 0) await deleteTopics(client, topics);
});

async function freshTopic(): Promise<string> {
  const topic = `it.generator.raw.${randomUUID().slice(0, 8)}`;
  topics.push(topic);
  await createTopics(client, [{ topic, partitions: 6 }]);
  return topic;
}

/** Runs the built CLI to its exit with `args`, results under the suite's directory and warn-level logs. */
async function runCli(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    [MAIN, ...args, '--results-dir', dir, '--log-level', 'warn'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

/** Checks a topic against a ledger; returns the evidence as plain data so that a failure shows it. */
function reconcile(rows: LedgerRow[], records: InRecord[], runId: string): Record<string, unknown> {
  const bySeq = new Map<number, InRecord[]>();
  let foreign = 0;
  for (const r of records) {
    if (r.headers[HEADERS.runId]?.toString() !== runId) {
      foreign++;
      continue;
    }
    const seq = Number(r.headers[HEADERS.seq]?.toString());
    bySeq.set(seq, [...(bySeq.get(seq) ?? []), r]);
  }
  const problems: string[] = [];
  let failedPresent = 0;
  for (const row of rows) {
    const found = bySeq.get(row.seq) ?? [];
    bySeq.delete(row.seq);
    if (row.delivery === 'failed') {
      // A failed send may still have been written (an indefinite failure); it must not be there twice.
      if (found.length > 1)
        problems.push(`failed seq ${row.seq} is in the topic ${found.length} times`);
      failedPresent += found.length;
      continue;
    }
    if (found.length !== 1) {
      problems.push(`acked seq ${row.seq} is in the topic ${found.length} times`);
      continue;
    }
    const r = found[0]!;
    if (r.partition !== row.partition || r.offset !== row.offset)
      problems.push(
        `seq ${row.seq} at ${r.partition}/${r.offset}, ledger says ${row.partition}/${row.offset}`,
      );
    if (r.timestamp !== row.send_time)
      problems.push(`seq ${row.seq} timestamp ${r.timestamp}, ledger send_time ${row.send_time}`);
    if ((r.key?.toString() ?? null) !== row.key)
      problems.push(`seq ${row.seq} key ${String(r.key)}, ledger ${row.key}`);
    const res = decodeEvent(r.value, { ingestTime: r.timestamp });
    const fate = res.ok ? 'valid' : res.reason;
    const expected = row.expected_fate === 'valid' ? 'valid' : row.expected_reason;
    if (fate !== expected)
      problems.push(`seq ${row.seq} decodes as ${fate}, ledger expects ${expected}`);
    if (res.ok && res.event.event_id !== row.event_id)
      problems.push(`seq ${row.seq} event_id differs`);
  }
  return {
    problems: problems.slice(0, 10),
    problemCount: problems.length,
    unexpectedSeqs: [...bySeq.keys()].slice(0, 10),
    foreign,
    failedPresent,
  };
}

async function waitUntil(ok: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (ok()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return ok();
}

describe('generator against the real cluster', () => {
  it('sends a seeded run with every fault kind; every acknowledged send is in the topic exactly once, as the ledger says', async () => {
    const topic = await freshTopic();
    const producer = await createIdempotentProducer(client);
    const sink = kafkaSink(producer, topic);
    const runId = `it-${randomUUID().slice(0, 8)}`;
    let summary: RunSummary;
    try {
      summary = await run({
        options: options({
          resultsDir: dir,
          runId,
          startTime: Date.now(),
          count: 5000,
          rate: 2000,
          topic,
          bootstrap: BOOTSTRAP,
          maxDuplicateDelayMs: 2000,
        }),
        sink,
        logger: silentLogger,
        clock: Date.now,
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      });
    } finally {
      await sink.close();
    }
    const rows = readLedgerSync(summary.ledger);
    expect(rows).toHaveLength(5000);
    expect(summary.acked + summary.failed).toBe(5000);
    // Every kind the helper's ratios enable (all but lateness_edge), and every reject reason.
    expect(new Set(rows.map((r) => r.fault)).size).toBe(10);
    expect(new Set(rows.map((r) => r.expected_reason).filter((r) => r !== null)).size).toBe(
      REJECT_REASONS.length,
    );

    const records = await readTopic({ ...client, topic, isolation: 'read_committed' });
    expect(reconcile(rows, records, runId)).toEqual({
      problems: [],
      problemCount: 0,
      unexpectedSeqs: [],
      foreign: 0,
      failedPresent: expect.any(Number),
    });

    // Keyed by session: a duplicate lands in its original's partition.
    const acked = new Map(rows.filter((r) => r.delivery === 'acked').map((r) => [r.seq, r]));
    const dups = rows.filter(
      (r) => r.fault === 'duplicate' && acked.has(r.seq) && acked.has(r.duplicate_of!),
    );
    expect(dups.length).toBeGreaterThan(0);
    expect(dups.filter((d) => d.partition !== acked.get(d.duplicate_of!)!.partition)).toEqual([]);
    const m = readManifest(summary.manifest);
    expect([m.counts.sends, m.counts.acked, m.counts.failed, m.dry_run, m.topic]).toEqual([
      5000,
      summary.acked,
      summary.failed,
      false,
      topic,
    ]);
  });

  it('the CLI stops on SIGTERM: exits 0, prints the summary, and the ledger holds exactly what reached the topic', async () => {
    const topic = await freshTopic();
    const runId = `it-cli-${randomUUID().slice(0, 8)}`;
    const child = spawn(
      process.execPath,
      [
        MAIN,
        '--seed',
        '5',
        '--rate',
        '500',
        '--duration',
        '10m',
        '--topic',
        topic,
        '--bootstrap',
        BOOTSTRAP,
        '--run-id',
        runId,
        '--results-dir',
        dir,
        '--log-level',
        'warn',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    await new Promise((r) => setTimeout(r, 4000));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    const summary = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as RunSummary;
    expect(summary.stopped_early).toBe(true);
    expect(summary.sends).toBeGreaterThan(0);
    const rows = readLedgerSync(summary.ledger);
    expect(rows).toHaveLength(summary.sends);
    const records = await readTopic({ ...client, topic, isolation: 'read_committed' });
    expect(reconcile(rows, records, runId)).toEqual({
      problems: [],
      problemCount: 0,
      unexpectedSeqs: [],
      foreign: 0,
      failedPresent: 0,
    });
  });

  it('a generator SIGKILLed mid-run leaves a manifest marked running and a ledger flushed up to its last second, which the reconciler checks as far as it goes and never calls exact', async () => {
    const topic = await freshTopic();
    const runId = `it-kill-${randomUUID().slice(0, 8)}`;
    const child = spawn(
      process.execPath,
      [
        MAIN,
        '--seed',
        '6',
        '--rate',
        '1000',
        '--duration',
        '10m',
        '--topic',
        topic,
        '--bootstrap',
        BOOTSTRAP,
        '--run-id',
        runId,
        '--results-dir',
        dir,
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const paths = runPaths(dir, runId);
    // Killed once sends have been flushed to the ledger for a couple of seconds (start-up, on a
    // loaded machine, can take several).
    const size = (): number => (fs.existsSync(paths.ledger) ? fs.statSync(paths.ledger).size : 0);
    const first = await waitUntil(() => size() > 10_000, 90_000);
    expect(first).toBe(true);
    await new Promise((r) => setTimeout(r, 2500));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    expect(readManifest(paths.manifest)).toMatchObject({ run_id: runId, status: 'running' });
    let cut: string | null = null;
    const seqs: number[] = [];
    for await (const b of iterateLedgerColumns(paths.ledger, { onCutTail: (d) => (cut = d) })) {
      seqs.push(...b.numbers('seq', -1));
    }
    // Every flushed batch, in seq order; at most the last second (the timer's period) is not there.
    expect({ rows: seqs.length, cut }).toEqual({ rows: expect.any(Number), cut: null });
    expect(seqs.length).toBeGreaterThan(1500);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    const records = await readTopic({ ...client, topic, isolation: 'read_committed' });
    expect(records.length).toBeGreaterThanOrEqual(seqs.length);

    const rec = spawn(
      process.execPath,
      [
        path.join(__dirname, '../../reconciler/dist/main.js'),
        '--run-dir',
        paths.dir,
        '--layers',
        'clickstream.raw',
        '--topic-raw',
        topic,
        '--bootstrap',
        BOOTSTRAP,
        '--log-level',
        'silent',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let table = '';
    rec.stdout.on('data', (b: Buffer) => (table += b.toString()));
    const code = await new Promise<number | null>((resolve) => rec.on('exit', resolve));
    const report = JSON.parse(fs.readFileSync(path.join(paths.dir, 'reconcile.json'), 'utf8')) as {
      verdict: string;
      layers: { layer: string; verdict: string; notes: string[]; missing: { count: number } }[];
    };
    expect({ code, verdict: report.verdict }).toEqual({ code: 2, verdict: 'unknown' });
    expect(report.layers[0]?.notes.join()).toMatch(/cut short/);
    // Every send the ledger holds is in raw: nothing before the cut is missing.
    expect(report.layers[0]?.missing.count).toBe(0);
    expect(table).toContain('unknown');
  });

  it('the CLI refuses a --topic that does not exist at once (exit 2, naming it): the brokers create no topic on demand', async () => {
    const topic = `it.generator.missing.${randomUUID().slice(0, 8)}`;
    const out = await runCli([
      '--count',
      '10',
      '--seed',
      '4',
      '--topic',
      topic,
      '--bootstrap',
      BOOTSTRAP,
    ]);
    expect(out).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining(`--topic ${topic}: no such topic`) as unknown,
    });
    // Asking did not create it.
    await expect(readTopic({ ...client, topic })).rejects.toThrow(/Unknown topic/);
  });

  it('a dry run of the CLI writes a ledger without touching Kafka', async () => {
    const { code, stdout, stderr } = await runCli([
      '--dry-run',
      '--count',
      '1000',
      '--seed',
      '3',
      '--start-time',
      '1764000000000',
      '--bootstrap',
      '127.0.0.1:1',
    ]);
    expect({ code, stderr }).toMatchObject({ code: 0 }); // a failure shows stderr
    const summary = JSON.parse(stdout.trim()) as RunSummary;
    expect([summary.run_id, summary.sends, summary.not_sent, summary.dry_run]).toEqual([
      'gen-3-1764000000000',
      1000,
      1000,
      true,
    ]);
    expect(readLedgerSync(summary.ledger).every((r) => r.delivery === 'not_sent')).toBe(true);
  });
});
