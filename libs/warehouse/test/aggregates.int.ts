import {
  createWarehouse,
  DDL_DIR,
  readRunRows,
  readSessionRows,
  readWindowRows,
  TABLES,
  toEventRow,
  toSessionRow,
  toWindowRow,
  type Warehouse,
} from '../src';
import type { ClickEvent, SessionAggregate, WindowAggregate } from '@clickstream/contracts';
import { CLICKHOUSE_URL, quietLogger, uniqueName } from './helpers';

const T0 = 1_760_000_000_000;
const meta = (offset: number) => ({ topic: 't', partition: 0, offset, timestamp: T0 });

function windowAgg(version: number, count: number, isFinal: boolean): WindowAggregate {
  return {
    run_id: 'r1',
    window_start: T0,
    window_end: T0 + 10_000,
    event_type: 'page_view',
    event_count: count,
    amount_cents_sum: 0,
    distinct_sessions: 1,
    version,
    is_final: isFinal,
    emitted_at: T0 + version,
  };
}

function sessionAgg(start: number, version: number, retracted: boolean): SessionAggregate {
  return {
    run_id: 'r1',
    session_id: 's1',
    session_start: start,
    session_end: start + 1000,
    event_count: 2,
    revenue_cents: 500,
    converted: true,
    version,
    is_final: !retracted,
    retracted,
    emitted_at: T0,
  };
}

describe('aggregate tables against a real ClickHouse (FINAL keeps the highest version)', () => {
  const database = uniqueName('wh_agg_test');
  let wh: Warehouse;

  beforeAll(async () => {
    wh = createWarehouse({ url: CLICKHOUSE_URL, database, logger: quietLogger });
    await wh.applyDdl(DDL_DIR);
  });

  afterAll(async () => {
    await wh.command(`DROP DATABASE IF EXISTS ${database}`);
    await wh.close();
  });

  it('returns the latest version of a window whatever the insert order and redeliveries', async () => {
    // Separate inserts = separate parts, so only FINAL can pick the winner.
    await wh.insertRows(TABLES.windows, [toWindowRow(windowAgg(2, 5, true), meta(2), T0)]);
    await wh.insertRows(TABLES.windows, [toWindowRow(windowAgg(1, 3, false), meta(1), T0)]);
    await wh.insertRows(TABLES.windows, [toWindowRow(windowAgg(2, 5, true), meta(2), T0 + 1)]);
    const read = await readWindowRows(wh, 'r1');
    expect(read.raw).toBe(3);
    expect(read.rows).toEqual([
      {
        run_id: 'r1',
        window_start: T0,
        window_end: T0 + 10_000,
        event_type: 'page_view',
        event_count: 5,
        amount_cents_sum: 0,
        distinct_sessions: 1,
        version: 2,
        is_final: true,
      },
    ]);
    expect((await readWindowRows(wh, 'other')).rows).toEqual([]);
  });

  it('keeps a retraction as the latest version of the old session key', async () => {
    await wh.insertRows(TABLES.sessions, [toSessionRow(sessionAgg(T0, 1, false), meta(1), T0)]);
    await wh.insertRows(TABLES.sessions, [toSessionRow(sessionAgg(T0, 2, true), meta(2), T0)]);
    await wh.insertRows(TABLES.sessions, [
      toSessionRow(sessionAgg(T0 - 5000, 1, false), meta(3), T0),
    ]);
    const read = await readSessionRows(wh, 'r1');
    expect(read.raw).toBe(3);
    const byStart = new Map(read.rows.map((r) => [r.session_start, r]));
    expect(byStart.get(T0)).toMatchObject({ version: 2, retracted: true, is_final: false });
    expect(byStart.get(T0 - 5000)).toMatchObject({ version: 1, retracted: false, converted: true });
  });

  it('holds each late event once under FINAL (events_late is keyed like events_clean)', async () => {
    const event: ClickEvent = {
      event_id: '00000000-0000-4000-8000-000000000001',
      seq: 7,
      run_id: 'r1',
      event_type: 'page_view',
      event_time: T0 - 120_000,
      session_id: 's1',
      user_id: null,
      page: '/',
      product_id: null,
      quantity: null,
      amount_cents: null,
      currency: null,
      device: null,
      ingest_time: T0,
    };
    await wh.insertRows(TABLES.late, [toEventRow(event, meta(1), T0)]);
    await wh.insertRows(TABLES.late, [toEventRow(event, meta(1), T0 + 1)]);
    const read = await readRunRows(wh, 'late', 'r1');
    expect(read.rows).toEqual([{ seq: 7, event_id: event.event_id }]);
    expect(read.raw).toBe(2);
  });
});
