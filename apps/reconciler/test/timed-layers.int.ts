/**
 * The timed layers against real Kafka and ClickHouse: a run whose late stream, window and session
 * aggregates (Kafka and ClickHouse) hold what the ledger implies is exact on all six; then a wrong
 * final window in Kafka is flagged with its key, and a not-yet-final session row in ClickHouse
 * makes that layer unknown.
 */

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  encodeEvent,
  encodeSessionAggregate,
  encodeWindowAggregate,
  HEADERS,
  type ClickEvent,
  type LedgerRow,
  type ReconciliationReport,
  type SessionAggregate,
  type WindowAggregate,
} from '@clickstream/contracts';
import {
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  type OutRecord,
} from '@clickstream/kafka-tx';
import { readManifest, writeLedger, writeManifest } from '@clickstream/ledger';
import {
  createWarehouse,
  DDL_DIR,
  TABLES,
  toEventRow,
  toSessionRow,
  toWindowRow,
  type Warehouse,
} from '@clickstream/warehouse';
import { parseConfig } from '../src/config';
import { kafkaTopicSource } from '../src/adapters/kafka';
import { readLedgerIndex } from '../src/adapters/ledger';
import { indexLedger } from '../src/core/ledger-index';
import { ledgerEventsOf } from '../src/core/ledger-events';
import { timedExpectation } from '../src/core/timed-expectation';
import { run } from '../src/run';
import { duplicateSend, manifestFor, poisonSend, validSend } from './ledger-rows';
import { BOOTSTRAP, CLICKHOUSE_URL, quietLogger } from './synthetic-run';

const T0 = 1_760_000_000_000;
const TYPES = ['page_view', 'product_view', 'add_to_cart', 'payment_succeeded'] as const;
const INGEST_DELAY = 4;

/** 60 events over 8 sessions and 4 windows, every 7th one minutes late, a duplicate and a poison send. */
function ledgerOf(runId: string): LedgerRow[] {
  const rows: LedgerRow[] = [];
  for (let s = 0; s < 60; s++) {
    const type = TYPES[s % TYPES.length] as (typeof TYPES)[number];
    const eventTime = T0 + s * 600;
    const late = s % 7 === 3;
    rows.push(
      validSend(s, {
        event_type: type,
        session_id: `s-${s % 8}`,
        key: `s-${s % 8}`,
        event_time: eventTime,
        amount_cents: type === 'payment_succeeded' ? 1000 + s : null,
        send_time: eventTime + (late ? 180_000 : 40),
        expected_timeliness: late ? 'late' : 'on_time',
      }),
    );
  }
  rows.push(duplicateSend(60, 5, { ...rows[5], seq: 60, send_time: T0 + 90_000 }));
  rows.push(poisonSend(61));
  return rows.map((r) => ({
    ...r,
    run_id: runId,
    event_id:
      r.event_id === null
        ? null
        : `00000000-0000-4000-8000-${r.event_id.slice(2).padStart(12, '0')}`,
  }));
}

function eventOf(r: LedgerRow): ClickEvent {
  return {
    event_id: r.event_id as string,
    seq: r.seq,
    run_id: r.run_id,
    event_type: r.event_type as ClickEvent['event_type'],
    event_time: r.event_time as number,
    session_id: r.session_id as string,
    user_id: null,
    page: '/',
    product_id: r.event_type === 'add_to_cart' || r.event_type === 'product_view' ? 'p1' : null,
    quantity: r.event_type === 'add_to_cart' ? 1 : null,
    amount_cents: r.amount_cents,
    currency: r.amount_cents === null ? null : 'EUR',
    device: null,
    ingest_time: r.send_time + INGEST_DELAY,
  };
}

const headers = (r: LedgerRow) => ({ [HEADERS.seq]: String(r.seq), [HEADERS.runId]: r.run_id });

describe('reconciler: timed layers on the real stack', () => {
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const runId = `timed-it-${id}`;
  const topics = {
    valid: `timed-it-valid-${id}`,
    late: `timed-it-late-${id}`,
    windows: `timed-it-windows-${id}`,
    sessions: `timed-it-sessions-${id}`,
  };
  const database = `timed_it_${id}`;
  const kafka = { bootstrap: BOOTSTRAP, clientId: `timed-it-${id}`, logger: quietLogger };
  let runDir: string;
  let wh: Warehouse;
  let rows: LedgerRow[];
  let produce: (records: OutRecord[]) => Promise<void>;
  let closeProducer: () => Promise<void>;

  beforeAll(async () => {
    runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconciler-timed-it-'));
    rows = ledgerOf(runId);
    await writeLedger(path.join(runDir, 'ledger.arrow'), rows);
    writeManifest(path.join(runDir, 'manifest.json'), manifestFor(rows));
    // The valid records carry their 2025 ingest times as Kafka timestamps, far past the brokers'
    // 7-day retention: the next retention check (every 5 minutes) deleted them whenever it fell
    // between this produce and the read, and events.valid read inexact. Kept forever here.
    await createTopics(
      kafka,
      Object.values(topics).map((topic) => ({
        topic,
        partitions: 3,
        config: { 'retention.ms': '-1' },
      })),
    );
    const producer = await createIdempotentProducer(kafka);
    produce = async (records) => {
      const failed = (await producer.send(records)).filter((r) => !r.ok);
      if (failed.length > 0) throw new Error(`produce failed: ${failed[0]?.error}`);
    };
    closeProducer = () => producer.close();
    wh = createWarehouse({ url: CLICKHOUSE_URL, database, logger: quietLogger });
    await wh.applyDdl(DDL_DIR);

    // What a correct pipeline writes: ingest times as stamped, the late events, and the final
    // aggregates (after a superseded non-final version, and a session retracted by a merge).
    const valid = rows.filter((r) => r.expected_fate === 'valid');
    const exp = timedExpectation({
      ledger: indexLedger(rows),
      events: ledgerEventsOf(rows),
      ingest: new Map(valid.map((r) => [r.seq, r.send_time + INGEST_DELAY])),
      latenessMs: 5000,
      ingestBoundMs: 60_000,
    });
    const late = valid.filter((r) => exp.lateNeed[r.seq] === 1);
    expect(late.length).toBeGreaterThan(5);
    const windows: WindowAggregate[] = [...exp.windows].flatMap(([key, v]) => {
      const [, start, type] = key.split('|');
      const base = {
        run_id: runId,
        window_start: Number(start),
        event_type: type as string,
        ...v,
        emitted_at: T0,
      };
      return [
        { ...base, event_count: v.event_count + 9, version: 1, is_final: false },
        { ...base, version: 2, is_final: true },
      ];
    });
    const sessions: SessionAggregate[] = [...exp.sessions].map(([key, v]) => {
      const [, session, start] = key.split('|');
      return {
        run_id: runId,
        session_id: session as string,
        session_start: Number(start),
        ...v,
        version: 1,
        is_final: true,
        retracted: false,
        emitted_at: T0,
      };
    });
    const retracted: SessionAggregate = {
      ...(sessions[0] as SessionAggregate),
      session_start: T0 - 1,
      version: 2,
      retracted: true,
    };
    sessions.push(retracted);
    const wKey = (w: WindowAggregate) => `${w.run_id}|${w.window_start}|${w.event_type}`;
    const sKey = (s: SessionAggregate) => `${s.run_id}|${s.session_id}|${s.session_start}`;
    await produce([
      ...valid.map((r) => ({
        topic: topics.valid,
        key: r.key,
        value: encodeEvent(eventOf(r)),
        headers: headers(r),
        timestamp: r.send_time + INGEST_DELAY,
      })),
      ...late.map((r) => ({
        topic: topics.late,
        key: r.key,
        value: encodeEvent(eventOf(r)),
        headers: headers(r),
      })),
      ...windows.map((w) => ({
        topic: topics.windows,
        key: wKey(w),
        value: encodeWindowAggregate(w),
      })),
      ...sessions.map((s) => ({
        topic: topics.sessions,
        key: sKey(s),
        value: encodeSessionAggregate(s),
      })),
    ]);
    const meta = (offset: number) => ({ topic: 'x', partition: 0, offset, timestamp: T0 });
    await wh.insertRows(
      TABLES.late,
      late.map((r, i) => toEventRow(eventOf(r), { ...meta(i), topic: topics.late }, T0)),
    );
    for (const w of windows) await wh.insertRows(TABLES.windows, [toWindowRow(w, meta(0), T0)]);
    await wh.insertRows(
      TABLES.sessions,
      sessions.map((s, i) => toSessionRow(s, meta(i), T0)),
    );
  });

  afterAll(async () => {
    await closeProducer();
    await deleteTopics(kafka, Object.values(topics)).catch(() => undefined);
    await wh.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
    await wh.close();
    fs.rmSync(runDir, { recursive: true, force: true });
  });

  async function reconcileNow(): Promise<ReconciliationReport> {
    const parsed = parseConfig(
      [
        '--run-dir',
        runDir,
        '--layers',
        'events.valid,events.late,agg.windows,agg.sessions,clickhouse.events_late,clickhouse.agg_windows,clickhouse.agg_sessions',
        '--bootstrap',
        BOOTSTRAP,
        '--clickhouse-url',
        CLICKHOUSE_URL,
        '--clickhouse-database',
        database,
        '--topic-valid',
        topics.valid,
        '--topic-late',
        topics.late,
        '--topic-windows',
        topics.windows,
        '--topic-sessions',
        topics.sessions,
      ],
      {},
    );
    if (parsed.help) throw new Error('unexpected --help');
    const client = { ...kafka, clientId: `${kafka.clientId}-${Date.now()}` };
    const result = await run({
      config: parsed.config,
      logger: quietLogger,
      ledger: { index: readLedgerIndex, manifest: (f) => readManifest(f) },
      kafka: (start) => kafkaTopicSource(client, start),
      sql: () => wh,
      print: () => undefined,
    });
    return result.report;
  }

  const verdicts = (r: ReconciliationReport) =>
    Object.fromEntries(r.layers.map((l) => [l.layer, l.verdict]));

  it('is exact on all six timed layers (ingest times taken from the events.valid read) when they hold what the ledger implies', async () => {
    const report = await reconcileNow();
    expect(verdicts(report)).toEqual({
      'events.valid': 'exact',
      'events.late': 'exact',
      'agg.windows': 'exact',
      'agg.sessions': 'exact',
      'clickhouse.events_late': 'exact',
      'clickhouse.agg_windows': 'exact',
      'clickhouse.agg_sessions': 'exact',
    });
    expect(report.verdict).toBe('exact');
  });

  it('flags a wrong final window in Kafka with its key and a non-final session row in ClickHouse as unknown', async () => {
    const report0 = await reconcileNow();
    const windows = report0.layers.find((l) => l.layer === 'agg.windows');
    expect(windows?.expected).toBeGreaterThan(3);
    const bad: WindowAggregate = {
      run_id: runId,
      window_start: T0,
      window_end: T0 + 10_000,
      event_type: 'page_view',
      event_count: 999,
      amount_cents_sum: 0,
      distinct_sessions: 1,
      version: 7,
      is_final: true,
      emitted_at: T0,
    };
    await produce([
      { topic: topics.windows, key: `${runId}|${T0}|page_view`, value: encodeWindowAggregate(bad) },
    ]);
    const first = rows[0] as LedgerRow;
    const open: SessionAggregate = {
      run_id: runId,
      session_id: first.session_id as string,
      session_start: first.event_time as number,
      session_end: first.event_time as number,
      event_count: 1,
      revenue_cents: 0,
      converted: false,
      version: 9,
      is_final: false,
      retracted: false,
      emitted_at: T0,
    };
    await wh.insertRows(TABLES.sessions, [
      toSessionRow(open, { topic: 'x', partition: 0, offset: 99, timestamp: T0 }, T0),
    ]);
    const report = await reconcileNow();
    expect(verdicts(report)).toMatchObject({
      'agg.windows': 'inexact',
      'clickhouse.agg_windows': 'exact',
      'clickhouse.agg_sessions': 'unknown',
      'agg.sessions': 'exact',
    });
    const differing = report.layers.find((l) => l.layer === 'agg.windows')?.differing;
    expect(differing?.count).toBe(1);
    expect(differing?.examples[0]).toMatchObject({
      key: `${runId}|${T0}|page_view`,
      observed: { event_count: 999 },
    });
    expect(report.verdict).toBe('inexact');
  });
});
