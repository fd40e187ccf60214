import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BACKFILL_DIR,
  createWarehouse,
  DASHBOARD_COPIES,
  DDL_DIR,
  PRODUCT_ROLLUP,
  readRunIngestTimes,
  readRunRecords,
  readRunRows,
  TABLES,
  toEventRow,
  toDlqRow,
  type EventRow,
  type Warehouse,
} from '../src';
import { HEADERS, type ClickEvent } from '@clickstream/contracts';
import { CLICKHOUSE_URL, quietLogger, uniqueName } from './helpers';

function event(seq: number, runId: string): ClickEvent {
  return {
    event_id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    seq,
    run_id: runId,
    event_type: 'page_view',
    event_time: 1_760_000_000_000 + seq,
    session_id: 's',
    user_id: seq % 2 === 0 ? null : 'u',
    page: '/',
    product_id: null,
    quantity: null,
    amount_cents: null,
    currency: null,
    device: null,
    ingest_time: 1_760_000_000_500 + seq,
  };
}

describe('warehouse against a real ClickHouse', () => {
  const database = uniqueName('wh_test');
  let wh: Warehouse;

  beforeAll(() => {
    wh = createWarehouse({
      url: CLICKHOUSE_URL,
      database,
      logger: quietLogger,
      requestTimeoutMs: 10_000,
    });
  });

  afterAll(async () => {
    await wh.command(`DROP DATABASE IF EXISTS ${database}`);
    await wh.close();
  });

  it('applies the DDL idempotently', async () => {
    const first = await wh.applyDdl(DDL_DIR);
    const second = await wh.applyDdl(DDL_DIR);
    expect(second).toEqual(first);
    const tables = await wh.query<{ name: string }>(
      'SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name',
      { db: database },
    );
    expect(tables.map((t) => t.name)).toEqual(
      [
        ...Object.values(TABLES),
        ...Object.values(DASHBOARD_COPIES).flatMap((c) => [c.table, c.view]),
        PRODUCT_ROLLUP.table,
        PRODUCT_ROLLUP.view,
      ].sort(),
    );
  });

  it('fills an empty view target once from rows older than its view, and leaves a filled one alone', async () => {
    // A database migrated before 009 existed: its events are in events_clean and the 008 copies.
    const older = mkdtempSync(join(tmpdir(), 'ddl-before-009-'));
    for (const f of readdirSync(DDL_DIR).filter((n) => n < '009'))
      copyFileSync(join(DDL_DIR, f), join(older, f));
    const db = uniqueName('wh_fill');
    const fills: string[] = [];
    const recording = {
      ...quietLogger,
      info: (o: object, msg?: string) => {
        if (msg === 'backfill applied') fills.push((o as { table: string }).table);
      },
    };
    const w = createWarehouse({ url: CLICKHOUSE_URL, database: db, logger: recording });
    try {
      // A fresh database: the copies are empty, so their fills run (and copy nothing); 009's table
      // does not exist yet, so its fill is not run.
      await w.applyDdl(older, BACKFILL_DIR);
      const copies = Object.values(DASHBOARD_COPIES).map((c) => c.table);
      expect(fills).toEqual(copies);
      const run = uniqueName('run');
      const view = (seq: number, product: string): object =>
        toEventRow(
          { ...event(seq, run), event_type: 'product_view', product_id: product },
          { topic: 'c', partition: 0, offset: seq, timestamp: 1_760_000_000_000 },
          1,
        );
      await w.insertRows(TABLES.clean, [view(1, 'p1'), view(2, 'p1'), view(3, 'p2')]);
      await w.command(`SYSTEM STOP MERGES ${db}.${DASHBOARD_COPIES.events.table}`);

      await w.applyDdl(DDL_DIR, BACKFILL_DIR);
      // Filled now: the rollup. Left alone: the events copy (it has rows). The empty copies run again.
      const runs = (table: string): number => fills.filter((t) => t === table).length;
      expect(runs(PRODUCT_ROLLUP.table)).toBe(1);
      expect(runs(DASHBOARD_COPIES.events.table)).toBe(1);
      const copied = await w.query<{ n: number }>(
        `SELECT count() AS n FROM ${DASHBOARD_COPIES.events.table}`,
      );
      expect(copied).toEqual([{ n: 3 }]);
      const ranked = await w.query<{ product: string; n: number }>(
        `SELECT product, uniqExactMerge(events) AS n FROM ${PRODUCT_ROLLUP.table}
         GROUP BY product ORDER BY product`,
      );
      expect(ranked).toEqual([
        { product: 'p1', n: 2 },
        { product: 'p2', n: 1 },
      ]);
      await w.applyDdl(DDL_DIR, BACKFILL_DIR);
      expect(runs(PRODUCT_ROLLUP.table)).toBe(1); // filled once
      expect(runs(DASHBOARD_COPIES.dlq.table)).toBe(3); // still empty: its fill copies nothing
    } finally {
      await w.command(`DROP DATABASE IF EXISTS ${db}`);
      await w.close();
      rmSync(older, { recursive: true, force: true });
    }
  });

  it('collapses a redelivered batch with FINAL while the raw rows show the duplicate', async () => {
    const run = uniqueName('run');
    const rows = [1, 2, 3].map((seq) =>
      toEventRow(
        event(seq, run),
        { topic: 't', partition: 0, offset: seq, timestamp: 1_760_000_000_000 },
        1,
      ),
    );
    await wh.insertRows(TABLES.valid, rows);
    // The same records loaded again (an at-least-once redelivery), later.
    await wh.insertRows(
      TABLES.valid,
      rows.map((r) => ({ ...r, inserted_at: 2 })),
    );

    const exact = await wh.query<{ seq: number; inserted_at: number }>(
      `SELECT seq, inserted_at FROM ${TABLES.valid} FINAL WHERE run_id = {run:String} ORDER BY seq`,
      { run },
    );
    expect(exact).toEqual([1, 2, 3].map((seq) => ({ seq, inserted_at: 2 })));

    const raw = await wh.query<{ seq: number; n: number }>(
      `SELECT seq, count() AS n FROM ${TABLES.valid} WHERE run_id = {run:String} GROUP BY seq ORDER BY seq`,
      { run },
    );
    expect(raw).toEqual([1, 2, 3].map((seq) => ({ seq, n: 2 })));
    // The reconciler's read: FINAL rows, the raw count, and which keys are not merged yet.
    const read = await readRunRows(wh, 'valid', run);
    expect(read.rows.map((r) => r.seq).sort()).toEqual([1, 2, 3]);
    expect(read).toMatchObject({ table: TABLES.valid, raw: 6 });
    expect(read.unmerged.map((seqs) => [...seqs].sort()).sort()).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect((await readRunRows(wh, 'valid', run, 1)).unmerged).toHaveLength(1);
  });

  it('keeps an event written twice upstream (two offsets) as two rows under FINAL', async () => {
    const run = uniqueName('run');
    const e = event(7, run);
    await wh.insertRows(TABLES.valid, [
      toEventRow(e, { topic: 't', partition: 0, offset: 10, timestamp: 1_760_000_000_000 }, 1),
      toEventRow(e, { topic: 't', partition: 0, offset: 11, timestamp: 1_760_000_000_000 }, 1),
    ]);
    const valid = await readRunRows(wh, 'valid', run);
    expect(valid.rows).toEqual([{ seq: 7 }, { seq: 7 }]);
    expect(valid).toMatchObject({ raw: 2, unmerged: [] });
    // The clean table is keyed on the event: the same event loaded from two offsets is one row.
    await wh.insertRows(TABLES.clean, [
      toEventRow(e, { topic: 'c', partition: 0, offset: 10, timestamp: 1_760_000_000_000 }, 1),
      toEventRow(e, { topic: 'c', partition: 0, offset: 11, timestamp: 1_760_000_000_000 }, 2),
    ]);
    const clean = await readRunRows(wh, 'clean', run);
    expect(clean.rows).toEqual([{ seq: 7, event_id: e.event_id }]);
    expect(clean).toMatchObject({ raw: 2, unmerged: [[7, 7]] });
    const other = await readRunRows(wh, 'clean', uniqueName('run'));
    expect(other).toMatchObject({ rows: [], raw: 0, unmerged: [] });
    expect(other.otherRuns).toBeGreaterThan(0);
  });

  it('readRunRecords: one entry per source Kafka record, the loader redeliveries as copies, without FINAL', async () => {
    const run = uniqueName('run');
    const e = event(8, run);
    const at = (offset: number, insertedAt: number, topic = 'c') =>
      toEventRow(e, { topic, partition: 1, offset, timestamp: 1_760_000_000_000 }, insertedAt);
    // Offset 20 loaded twice (a redelivery), offset 21 a second upstream record of the same event,
    // and one row loaded from a topic the table is not fed from (its name comes back).
    await wh.insertRows(TABLES.clean, [at(20, 1), at(20, 2), at(21, 3), at(2 ** 40, 4, 'other-ü')]);
    const read = await readRunRecords(wh, 'clean', run, 'c');
    expect(read).toMatchObject({ table: TABLES.clean, raw: 4 });
    expect(
      read.records
        .map((r) => ({ ...r, copies: Number(r.copies) }))
        .sort((a, b) => a.kafka_offset - b.kafka_offset),
    ).toEqual([
      {
        seq: 8,
        event_id: e.event_id,
        kafka_topic: 'c',
        kafka_partition: 1,
        kafka_offset: 20,
        copies: 2,
      },
      {
        seq: 8,
        event_id: e.event_id,
        kafka_topic: 'c',
        kafka_partition: 1,
        kafka_offset: 21,
        copies: 1,
      },
      {
        seq: 8,
        event_id: e.event_id,
        kafka_topic: 'other-ü',
        kafka_partition: 1,
        kafka_offset: 2 ** 40,
        copies: 1,
      },
    ]);
    // FINAL shows the event once whatever happened upstream.
    expect((await readRunRows(wh, 'clean', run)).rows).toHaveLength(1);
  });

  it("readRunIngestTimes: the run's distinct gatekeeper stamps, ascending, redeliveries and other runs left out", async () => {
    const run = uniqueName('run');
    const row = (seq: number, ingest: number | null, offset: number) =>
      toEventRow(
        { ...event(seq, run), ingest_time: ingest },
        { topic: 't', partition: 0, offset, timestamp: 1_760_000_000_000 },
        1,
      );
    await wh.insertRows(TABLES.valid, [
      row(3, 1_760_000_009_000, 3),
      row(1, 1_760_000_001_000, 1),
      row(2, 1_760_000_001_000, 2),
      row(4, null, 4),
    ]);
    // A redelivery of seq 3 and another run's row: neither changes the answer.
    await wh.insertRows(TABLES.valid, [row(3, 1_760_000_009_000, 3)]);
    await wh.insertRows(TABLES.valid, [
      toEventRow(
        event(5, uniqueName('run')),
        { topic: 't', partition: 0, offset: 5, timestamp: 0 },
        1,
      ),
    ]);
    expect(await readRunIngestTimes(wh, run)).toEqual([1_760_000_001_000, 1_760_000_009_000]);
    expect(await readRunIngestTimes(wh, uniqueName('run'))).toEqual([]);
  });

  it('round-trips nullable columns and dead-letter bytes', async () => {
    const run = uniqueName('run');
    const value = Buffer.from([0xc3, 0x01, 0x00, 0xff, 0x27, 0x5c]);
    await wh.insertRows(TABLES.dlq, [
      toDlqRow(
        {
          value,
          headers: {
            [HEADERS.seq]: '9',
            [HEADERS.runId]: run,
            [HEADERS.reason]: 'bad_magic',
            [HEADERS.detail]: "it's \\ odd",
          },
        },
        { topic: 'events.dlq', partition: 1, offset: 5, timestamp: 1_760_000_000_000 },
        3,
      ),
    ]);
    const [row] = await wh.query<{
      seq: number;
      reason: string;
      detail: string;
      value_base64: string;
      source_offset: number;
    }>(
      `SELECT seq, reason, detail, value_base64, source_offset FROM ${TABLES.dlq} FINAL WHERE run_id = {run:String}`,
      { run },
    );
    expect(row).toEqual({
      seq: 9,
      reason: 'bad_magic',
      detail: "it's \\ odd",
      value_base64: value.toString('base64'),
      source_offset: -1,
    });
  });

  it('stores exactly what a JSONEachRow insert of the same rows stores, byte for byte', async () => {
    // The loader's inserts were JSONEachRow until RowBinary took over: the same rows through both
    // must leave the same bytes in every column (NULLs, multi-byte and long strings, 64-bit extremes).
    const [viaBinary, viaJson] = [uniqueName('run'), uniqueName('run')];
    const texts = ['', 'plain', 'quote \' " \\ tab\t nl\n', 'ü€😀'.repeat(11), 'x'.repeat(300)];
    const rows = (run: string): EventRow[] =>
      texts.map((text, i) => ({
        ...toEventRow(
          { ...event(i + 1, run), session_id: text, user_id: i % 2 ? null : text },
          { topic: 'events.valid', partition: i, offset: 2 ** 53 - 1 - i, timestamp: -(2 ** 40) },
          2 ** 53 - 1,
        ),
        quantity: i === 0 ? null : -(2 ** 31) + i,
        amount_cents: i === 0 ? null : -(2 ** 53) + 1 + i,
        ingest_time: i === 1 ? null : 0,
      }));
    await wh.insertRows(TABLES.valid, rows(viaBinary));
    await wh.command(
      `INSERT INTO ${TABLES.valid} FORMAT JSONEachRow\n` +
        rows(viaJson)
          .map((r) => JSON.stringify(r))
          .join('\n'),
    );
    const columns = (await wh.query<{ name: string }>(`DESCRIBE TABLE ${TABLES.valid}`))
      .map((c) => c.name)
      .filter((name) => name !== 'run_id');
    const stored = async (run: string): Promise<string> => {
      const chunks: Buffer[] = [];
      const body = await wh.queryStream(
        `SELECT ${columns.join(', ')} FROM ${TABLES.valid} WHERE run_id = {run:String} ORDER BY seq FORMAT TabSeparated`,
        { run },
      );
      for await (const chunk of body) chunks.push(chunk);
      return Buffer.concat(chunks).toString('hex');
    };
    const binary = await stored(viaBinary);
    expect(binary.length).toBeGreaterThan(2 * 1000);
    expect(binary).toBe(await stored(viaJson));
  });

  it('refuses a row its table cannot hold exactly, and inserts nothing of the batch', async () => {
    const run = uniqueName('run');
    const good = toEventRow(
      event(1, run),
      { topic: 't', partition: 0, offset: 0, timestamp: 0 },
      1,
    );
    await expect(
      wh.insertRows(TABLES.valid, [good, { ...good, seq: 2, kafka_partition: -1 }]),
    ).rejects.toThrow(
      `RowBinary insert into ${TABLES.valid}: row 1, column kafka_partition (UInt32): -1 is out of UInt32's range`,
    );
    await expect(wh.insertRows(TABLES.valid, [{ ...good, extra: 1 }])).rejects.toThrow(
      'row 0 has extra, which is no insertable column',
    );
    const [row] = await wh.query<{ n: number }>(
      `SELECT count() AS n FROM ${TABLES.valid} WHERE run_id = {run:String}`,
      { run },
    );
    expect(row?.n).toBe(0);
  });

  it('binds a hostile string as a literal', async () => {
    const rows = await wh.query(
      `SELECT seq FROM ${TABLES.valid} FINAL WHERE run_id = {run:String}`,
      { run: "x' OR 1=1 OR run_id != '" },
    );
    expect(rows).toEqual([]);
  });

  it('pings a live server and reports a dead one as false', async () => {
    expect(await wh.ping()).toBe(true);
    const dead = createWarehouse({
      url: 'http://127.0.0.1:1',
      database,
      logger: quietLogger,
      requestTimeoutMs: 2_000,
    });
    expect(await dead.ping()).toBe(false);
    await dead.close();
  });
});
