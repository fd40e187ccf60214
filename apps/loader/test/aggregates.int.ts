/** The loader against the real stack: events.late, agg.windows and agg.sessions land in their tables; FINAL keeps the latest version per key. */
import {
  encodeSessionAggregate,
  encodeWindowAggregate,
  type SessionAggregate,
  type WindowAggregate,
} from '@clickstream/contracts';
import { createTopics, deleteTopics, type OutRecord } from '@clickstream/kafka-tx';
import {
  DDL_DIR,
  readRunRows,
  readSessionRows,
  readWindowRows,
  type Warehouse,
} from '@clickstream/warehouse';
import {
  kafka,
  makeEvent,
  openWarehouse,
  produceAll,
  startLoader,
  stopLoader,
  uniqueId,
  validRecord,
  waitFor,
} from './harness';

const T0 = 1_760_000_000_000;

describe('loader: late events and aggregates', () => {
  const id = uniqueId();
  const database = `loader_agg_it_${id}`;
  const late = `it.loader.late.${id}`;
  const windows = `it.loader.windows.${id}`;
  const sessions = `it.loader.sessions.${id}`;
  let wh: Warehouse;

  beforeAll(async () => {
    await createTopics(kafka, [
      { topic: late, partitions: 2 },
      { topic: windows, partitions: 2 },
      { topic: sessions, partitions: 2 },
    ]);
    wh = openWarehouse(database);
    await wh.applyDdl(DDL_DIR);
  });

  afterAll(async () => {
    await wh.command(`DROP DATABASE IF EXISTS ${database}`);
    await wh.close();
    await deleteTopics(kafka, [late, windows, sessions]);
  });

  it('loads every emission; FINAL shows the last version of each window and session', async () => {
    const run = `run_agg_${id}`;
    const window = (type: string, version: number, count: number): OutRecord => {
      const w: WindowAggregate = {
        run_id: run,
        window_start: T0,
        window_end: T0 + 10_000,
        event_type: type,
        event_count: count,
        amount_cents_sum: 100 * count,
        distinct_sessions: 1,
        version,
        is_final: version === 3,
        emitted_at: T0 + version,
      };
      return { topic: windows, key: `${run}|${T0}|${type}`, value: encodeWindowAggregate(w) };
    };
    const session = (start: number, version: number, retracted: boolean): OutRecord => {
      const s: SessionAggregate = {
        run_id: run,
        session_id: 's1',
        session_start: start,
        session_end: start + 2000,
        event_count: 2,
        revenue_cents: 0,
        converted: false,
        version,
        is_final: true,
        retracted,
        emitted_at: T0,
      };
      return { topic: sessions, key: `${run}|s1|${start}`, value: encodeSessionAggregate(s) };
    };
    await produceAll([
      window('page_view', 1, 1),
      window('page_view', 2, 2),
      window('page_view', 3, 3),
      window('add_to_cart', 1, 7),
      session(T0, 1, false),
      session(T0, 2, true),
      session(T0 - 3000, 1, false),
      ...[1, 2, 3].map((seq) => validRecord(late, makeEvent(run, seq))),
    ]);

    const loader = startLoader([
      '--database',
      database,
      '--group',
      `g_agg_${id}`,
      '--topics',
      `late=${late},windows=${windows},sessions=${sessions}`,
    ]);
    try {
      await waitFor('every emission to be loaded', async () => {
        const [w, s, l] = await Promise.all([
          readWindowRows(wh, run),
          readSessionRows(wh, run),
          readRunRows(wh, 'late', run),
        ]);
        return w.raw === 4 && s.raw === 3 && l.raw === 3;
      });
    } finally {
      expect(await stopLoader(loader)).toBe(0);
    }

    const w = await readWindowRows(wh, run);
    expect(
      w.rows
        .map((r) => [r.event_type, r.version, r.event_count, r.is_final])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      ['add_to_cart', 1, 7, false],
      ['page_view', 3, 3, true],
    ]);
    const s = await readSessionRows(wh, run);
    expect(
      s.rows
        .map((r) => [r.session_start, r.version, r.retracted])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
    ).toEqual([
      [T0 - 3000, 1, false],
      [T0, 2, true],
    ]);
    expect((await readRunRows(wh, 'late', run)).rows.map((r) => r.seq).sort()).toEqual([1, 2, 3]);
  });
});
