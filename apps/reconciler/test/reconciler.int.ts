/**
 * Mutation tests against real Kafka and ClickHouse: a synthetic run is exact on every layer read,
 * then each mutation (a row deleted from ClickHouse, a duplicate produced into the clean topic,
 * poison produced into the valid topic) is flagged on exactly that layer and that seq.
 */

import { execFile } from 'child_process';
import * as path from 'path';
import { promisify } from 'util';
import {
  HEADERS,
  ReconciliationReportSchema,
  type LayerReport,
  type ReconciliationReport,
} from '@clickstream/contracts';
import { deleteRecordsBefore, readTopic } from '@clickstream/kafka-tx';
import { readManifest, writeManifest } from '@clickstream/ledger';
import * as fs from 'fs';
import * as os from 'os';
import { DEFAULT_TOPIC_READER, parseConfig } from '../src/config';
import { kafkaTopicSource } from '../src/adapters/kafka';
import { readLedgerIndex } from '../src/adapters/ledger';
import { run } from '../src/run';
import {
  BOOTSTRAP,
  CLICKHOUSE_URL,
  createSyntheticRun,
  quietLogger,
  recordOf,
  type SyntheticRun,
} from './synthetic-run';

const LAYERS =
  'clickstream.raw,events.valid,events.dlq,events.clean,clickhouse.valid,clickhouse.dlq,clickhouse.clean';
const MAIN = path.join(__dirname, '..', 'dist', 'main.js');

function flags(s: SyntheticRun): string[] {
  return [
    '--run-dir',
    s.runDir,
    '--layers',
    LAYERS,
    '--bootstrap',
    BOOTSTRAP,
    '--clickhouse-url',
    CLICKHOUSE_URL,
    '--clickhouse-database',
    s.database,
    '--topic-raw',
    s.topics.raw,
    '--topic-valid',
    s.topics.valid,
    '--topic-dlq',
    s.topics.dlq,
    '--topic-clean',
    s.topics.clean,
  ];
}

async function reconcileNow(s: SyntheticRun, more: string[] = []): Promise<ReconciliationReport> {
  const parsed = parseConfig([...flags(s), ...more], {});
  if (parsed.help) throw new Error('unexpected --help');
  const { config } = parsed;
  const client = {
    bootstrap: config.bootstrap,
    clientId: `${config.clientId}-${Date.now()}`,
    logger: quietLogger,
  };
  const result = await run({
    config,
    logger: quietLogger,
    ledger: { index: readLedgerIndex, manifest: (f) => readManifest(f) },
    // The compiled topic reader, as the reconciler reads by default (timed-layers.int.ts reads with readTopic).
    kafka: (start) => kafkaTopicSource(client, start, DEFAULT_TOPIC_READER),
    sql: () => s.warehouse,
    print: () => undefined,
  });
  return result.report;
}

function verdicts(r: ReconciliationReport): Record<string, string> {
  return Object.fromEntries(r.layers.map((l) => [l.layer, l.verdict]));
}

function layer(r: ReconciliationReport, name: string): LayerReport {
  const l = r.layers.find((x) => x.layer === name);
  if (l === undefined) throw new Error(`layer ${name} not in report`);
  return l;
}

const allExact = Object.fromEntries(LAYERS.split(',').map((l) => [l, 'exact']));

describe('reconciler against real Kafka and ClickHouse', () => {
  let s: SyntheticRun;
  let createdAt = 0;

  beforeAll(async () => {
    createdAt = Date.now();
    s = await createSyntheticRun();
  });
  afterAll(async () => {
    await s?.cleanup();
  });

  it('the unmutated run is exact on every layer, through the CLI (exit 0, report written)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      MAIN,
      ...flags(s),
      '--log-level',
      'warn',
    ]);
    const report = ReconciliationReportSchema.parse(
      JSON.parse(fs.readFileSync(path.join(s.runDir, 'reconcile.json'), 'utf8')),
    );
    expect(verdicts(report)).toEqual(allExact);
    expect(report.verdict).toBe('exact');
    expect(stdout).toContain('clickhouse.clean');
    expect(layer(report, 'clickstream.raw')).toMatchObject({ expected: 47, observed: 48 });
    // The send the generator saw fail but that reached raw is expected downstream once, like any other.
    expect(layer(report, 'events.clean')).toMatchObject({ expected: 41, observed: 41 });
    expect(layer(report, 'events.dlq')).toMatchObject({
      expected: 4,
      observed: 4,
      differing: { count: 0 },
    });
    // Each valid record and dead letter was checked against its raw record (partition, ingest_time, bytes, source).
    expect(layer(report, 'events.valid').differing).toEqual({ count: 0, examples: [] });
    for (const name of ['events.valid', 'events.dlq'])
      expect(layer(report, name).notes.join('|')).not.toMatch(/not checked/);
    for (const l of report.layers)
      expect(l.notes.join('|')).toMatch(/1 record\(s\) of other runs ignored/);
  });

  it('reads the topics from the run start: a start after every record reads none of them (unknown, never a pass); the real start is exact', async () => {
    // The same run in a directory of its own whose manifest carries a start time (the synthetic one says 0).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconciler-it-start-'));
    try {
      fs.copyFileSync(path.join(s.runDir, 'ledger.arrow'), path.join(dir, 'ledger.arrow'));
      const manifest = readManifest(path.join(s.runDir, 'manifest.json'));
      const at = (startedAt: number) => {
        writeManifest(path.join(dir, 'manifest.json'), { ...manifest, started_at: startedAt });
        return { ...s, runDir: dir };
      };
      // A layer that holds nothing of the run is no evidence: unknown, like a topic not yet written.
      const future = await reconcileNow(at(Date.now() + 600_000), ['--kafka-margin-s', '0']);
      for (const name of ['clickstream.raw', 'events.valid', 'events.dlq', 'events.clean'])
        expect(layer(future, name)).toMatchObject({ verdict: 'unknown', observed: 0 });
      expect(future.verdict).toBe('unknown');
      expect(layer(future, 'clickhouse.clean').verdict).toBe('exact');
      expect(layer(future, 'clickstream.raw').notes).toContainEqual(
        expect.stringMatching(
          /^topic rec-it-raw-\S+: 0 record\(s\) read from \S+Z \(the run's start less 0 s\) by the compiled topic reader \(\S+\)$/,
        ),
      );
      // The run's records were all written after its creation began: that start, less the default margin, reads them all.
      const now = await reconcileNow(at(createdAt));
      expect(verdicts(now)).toEqual(allExact);
      expect(layer(now, 'events.valid').notes).toContainEqual(
        expect.stringMatching(
          /record\(s\) read from \S+Z \(the run's start less 60 s\) by the compiled topic reader/,
        ),
      );
      const all = await reconcileNow(at(Date.now() + 600_000), ['--kafka-from', 'beginning']);
      expect(verdicts(all)).toEqual(allExact);
      expect(layer(all, 'events.dlq').notes).toContainEqual(
        expect.stringMatching(
          /record\(s\) read from the beginning \(--kafka-from beginning\) by the compiled/,
        ),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('not-yet-merged duplicate rows in ClickHouse are a note, not a failure', async () => {
    // A background merge would fold the copy away before the reconciler reads it.
    await s.warehouse.command(`SYSTEM STOP MERGES ${s.database}.events_valid`);
    const [row] = await s.warehouse.query<Record<string, unknown>>(
      'SELECT * FROM events_valid WHERE run_id = {run:String} AND seq = 5',
      { run: s.runId },
    );
    await s.warehouse.insertRows('events_valid', [row as object]);
    const report = await reconcileNow(s);
    expect(verdicts(report)).toEqual(allExact);
    expect(layer(report, 'clickhouse.valid').notes.join('|')).toMatch(
      /1 stored row\(s\) are the loader's redeliveries of a record already counted/,
    );
  });

  it('a row deleted from a ClickHouse table: that table, that seq, missing', async () => {
    await s.warehouse.command(
      'ALTER TABLE events_clean DELETE WHERE run_id = {run:String} AND seq = 17',
      { run: s.runId },
    );
    // ClickHouse 18.16 has no mutations_sync: wait for the mutation to finish, and fail if it does not.
    let pending = -1;
    for (let i = 0; i < 300 && pending !== 0; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 200));
      const [m] = await s.warehouse.query<{ n: number }>(
        "SELECT count() AS n FROM system.mutations WHERE database = {db:String} AND table = 'events_clean' AND is_done = 0",
        { db: s.database },
      );
      pending = Number(m?.n);
    }
    if (pending !== 0)
      throw new Error(
        `the ALTER DELETE on events_clean was not done after 60 s (${pending} pending)`,
      );
    const report = await reconcileNow(s);
    expect(verdicts(report)).toEqual({ ...allExact, 'clickhouse.clean': 'inexact' });
    const l = layer(report, 'clickhouse.clean');
    expect(l.missing).toEqual({ count: 1, examples: [{ seq: 17 }] });
    expect(l.duplicated.count + l.unexpected.count).toBe(0);
  });

  it('a duplicate produced into events.clean: that topic, that seq, duplicated', async () => {
    await s.produce([recordOf(s.topics.clean, s.rows[9] as never)]);
    const report = await reconcileNow(s);
    expect(verdicts(report)).toEqual({
      ...allExact,
      'clickhouse.clean': 'inexact',
      'events.clean': 'inexact',
    });
    const l = layer(report, 'events.clean');
    expect(l.duplicated).toEqual({ count: 1, examples: [{ seq: 9, copies: 2 }] });
    expect(l.missing.count + l.unexpected.count).toBe(0);
  });

  it('a poison record produced into events.valid: that topic, that seq, leaked poison', async () => {
    const poison = s.rows.find((r) => r.seq === 44);
    await s.produce([recordOf(s.topics.valid, poison as never)]);
    const report = await reconcileNow(s);
    expect(verdicts(report)).toEqual({
      ...allExact,
      'clickhouse.clean': 'inexact',
      'events.clean': 'inexact',
      'events.valid': 'inexact',
    });
    const l = layer(report, 'events.valid');
    expect(l.unexpected).toEqual({
      count: 1,
      examples: [{ seq: 44, why: 'poison leaked into a valid layer' }],
    });
    expect(l.missing.count + l.duplicated.count).toBe(0);
  });

  it('a dead letter that names another source record: events.dlq differing, field source', async () => {
    const poison = s.rows.find((r) => r.seq === 43) as never;
    await s.produce([
      recordOf(s.topics.dlq, poison, {
        [HEADERS.reason]: 'bad_magic',
        [HEADERS.sourceTopic]: s.topics.raw,
        [HEADERS.sourcePartition]: '0',
        [HEADERS.sourceOffset]: '999999',
      }),
    ]);
    const report = await reconcileNow(s);
    const l = layer(report, 'events.dlq');
    expect(l.verdict).toBe('inexact');
    expect(l.duplicated).toEqual({ count: 1, examples: [{ seq: 43, copies: 2 }] });
    expect(l.differing?.count).toBe(1);
    expect(l.differing?.examples[0]).toMatchObject({
      seq: 43,
      field: 'source',
      observed: { topic: s.topics.raw, partition: 0, offset: 999999 },
    });
  });

  it('clickhouse.clean without FINAL: a second Kafka record of one event is duplicated, a row of another topic unexpected', async () => {
    const [row] = await s.warehouse.query<Record<string, unknown>>(
      'SELECT * FROM events_clean WHERE run_id = {run:String} AND seq = 6',
      { run: s.runId },
    );
    const [other] = await s.warehouse.query<Record<string, unknown>>(
      'SELECT * FROM events_clean WHERE run_id = {run:String} AND seq = 8',
      { run: s.runId },
    );
    // FINAL (keyed on run_id, event_id) shows each of these events once; a background merge would too.
    await s.warehouse.command(`SYSTEM STOP MERGES ${s.database}.events_clean`);
    await s.warehouse.insertRows('events_clean', [
      { ...row, kafka_offset: 100_000, inserted_at: 5 },
      { ...other, kafka_topic: s.topics.valid, kafka_offset: 100_001, inserted_at: 5 },
    ]);
    const l = layer(await reconcileNow(s), 'clickhouse.clean');
    expect(l.verdict).toBe('inexact');
    expect(l.duplicated.examples).toContainEqual({ seq: 6, copies: 2 });
    expect(l.unexpected.examples).toContainEqual({
      seq: 8,
      why: `row loaded from topic "${s.topics.valid}"; events_clean is fed from "${s.topics.clean}"`,
    });
  });

  it("records deleted from a partition's start (as retention deletes them): missing, and a note names the partition and its log start", async () => {
    const client = { bootstrap: BOOTSTRAP, clientId: 'reconciler-it-trim', logger: quietLogger };
    const clean = await readTopic({ ...client, topic: s.topics.clean });
    const p = clean[0]?.partition ?? 0;
    const seqOf = (r: (typeof clean)[number]): string | undefined =>
      r.headers[HEADERS.runId]?.toString() === s.runId
        ? r.headers[HEADERS.seq]?.toString()
        : undefined;
    const gone = (r: (typeof clean)[number]): boolean => r.partition === p && r.offset < 2;
    const kept = new Set(clean.filter((r) => !gone(r)).map(seqOf));
    // This run's seqs of which no copy is left (an earlier case produced a second copy of one).
    const lost = new Set(
      clean
        .filter(gone)
        .map(seqOf)
        .filter((q) => q !== undefined && !kept.has(q)),
    );
    expect(lost.size).toBeGreaterThan(0);
    await deleteRecordsBefore(client, s.topics.clean, { [p]: 2 });
    const report = await reconcileNow(s);
    const l = layer(report, 'events.clean');
    expect(l.verdict).toBe('inexact');
    expect(l.missing.count).toBe(lost.size);
    expect(l.notes.join('|')).toContain(
      `topic ${s.topics.clean}: the read of partition(s) ${p} (log start 2) began at the log start`,
    );
    // The topics nothing was deleted from say nothing of it.
    expect(layer(report, 'events.valid').notes.join('|')).not.toContain('log start');
  });

  it('an unreachable layer is unknown and the CLI exits non-zero', async () => {
    const args = [
      ...flags(s),
      '--layers',
      'clickhouse.valid',
      '--clickhouse-url',
      'http://127.0.0.1:1',
      '--log-level',
      'silent',
    ];
    const child = await promisify(execFile)(process.execPath, [MAIN, ...args]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(child.code).toBe(2);
    expect(child.stderr).toContain('NOT exact: clickhouse.valid unknown');
  });
});
