/** The dashboard reads against a real ClickHouse: hand-made sessions with redeliveries, ties, probe and other-run rows. */
import {
  activeSessions,
  createWarehouse,
  DASHBOARD_TABLES,
  DDL_DIR,
  deadLettersByReason,
  funnel,
  PRODUCT_ROLLUP,
  revenuePerMinute,
  SOURCE_TABLES,
  topProducts,
  type Warehouse,
} from '../src';
import { CLICKHOUSE_URL, quietLogger, uniqueName } from './helpers';

const T0 = 1_760_000_040_000; // a minute boundary
const WINDOW = 60_000;
let nextId = 0;

function ev(run: string, session: string, type: string, dt: number, extra: object = {}): object {
  nextId += 1;
  return {
    run_id: run,
    seq: nextId,
    event_id: `${run}-e${nextId}`,
    event_type: type,
    event_time: T0 + dt,
    session_id: session,
    kafka_topic: 'events.clean',
    kafka_partition: 0,
    kafka_offset: nextId,
    kafka_timestamp: T0 + dt,
    inserted_at: 1,
    ...extra,
  };
}

function funnelOf(run: string, session: string, extra: { amount?: number } = {}): object[] {
  return [
    ev(run, session, 'page_view', 0),
    ev(run, session, 'product_view', 1000, { product_id: 'p1' }),
    ev(run, session, 'add_to_cart', 2000, { product_id: 'p1' }),
    ev(run, session, 'checkout_started', 3000),
    ev(run, session, 'payment_succeeded', 4000, { amount_cents: extra.amount ?? 5000 }),
  ];
}

describe('dashboard reads against a real ClickHouse', () => {
  const database = uniqueName('wh_dash');
  let wh: Warehouse;
  const probe = 'probe-';
  const range = { fromMs: T0, toMs: T0 + 10 * 60_000, excludeRunPrefix: probe };

  beforeAll(async () => {
    wh = createWarehouse({
      url: CLICKHOUSE_URL,
      database,
      logger: quietLogger,
      requestTimeoutMs: 10_000,
    });
    await wh.applyDdl(DDL_DIR);
    // Merges stay off on the copies and the rollup, so the redelivered blocks below stay visible as raw rows.
    for (const t of [...Object.values(DASHBOARD_TABLES), PRODUCT_ROLLUP.table])
      await wh.command(`SYSTEM STOP MERGES ${database}.${t}`);
    const a = funnelOf('r1', 'A');
    const rows: object[] = [
      ...a,
      // The loader redelivered A's add_to_cart and payment (same event, same key): counted once.
      a[2] as object,
      a[4] as object,
      ev('r1', 'B', 'page_view', 0),
      ev('r1', 'B', 'product_view', 100, { product_id: 'p2' }),
      ev('r1', 'B', 'product_view', 200, { product_id: 'p1' }),
      ev('r1', 'C', 'product_view', 0, { product_id: 'p2' }), // no page_view: level 0
      ev('r1', 'D', 'page_view', 0),
      ev('r1', 'D', 'add_to_cart', 500, { product_id: 'p3' }), // skips product_view: level 1
      ev('r1', 'E', 'page_view', 0),
      ev('r1', 'E', 'product_view', WINDOW + 1, { product_id: 'p9' }), // outside the window: level 1
      // Same millisecond, inserted step 2 first: still level 2 (ties order by step).
      ev('r1', 'F', 'product_view', 7, { product_id: 'p2' }),
      ev('r1', 'F', 'page_view', 7),
      ev('r1', 'G', 'page_view', -1), // before the range
      ...funnelOf('probe-1', 'P'), // the probe: never counts
      ...funnelOf('r2', 'A', { amount: 700 }), // another run, same session id
    ];
    await wh.insertRows('events_clean', rows);
    // A redelivered block (the loader retried a batch): the view copies it again.
    await wh.insertRows('events_clean', [a[2] as object, a[4] as object]);
    const dlq = (offset: number, reason: string, dt: number): object => ({
      run_id: 'r1',
      seq: offset,
      reason,
      kafka_topic: 'events.dlq',
      kafka_partition: 0,
      kafka_offset: offset,
      kafka_timestamp: T0 + dt,
      inserted_at: 1,
    });
    await wh.insertRows('events_dlq', [
      dlq(1, 'bad_magic', 0),
      dlq(1, 'bad_magic', 0), // redelivered
      dlq(2, 'bad_magic', 10),
      dlq(3, 'truncated', 20),
      dlq(4, 'truncated', -5), // before the range
    ]);
    await wh.insertRows('events_dlq', [dlq(2, 'bad_magic', 10)]); // redelivered, another block
  });

  afterAll(async () => {
    await wh.command(`DROP DATABASE IF EXISTS ${database}`);
    await wh.close();
  });

  it('counts sessions per funnel step with windowFunnel, one run or all but the probe', async () => {
    const one = await funnel(wh, { ...range, runId: 'r1', windowMs: WINDOW });
    expect(one.steps.map((s) => s.sessions)).toEqual([5, 3, 1, 1, 1]);
    expect(one.steps.map((s) => s.step)).toEqual([
      'page_view',
      'product_view',
      'add_to_cart',
      'checkout_started',
      'payment_succeeded',
    ]);
    const all = await funnel(wh, { ...range, windowMs: WINDOW });
    expect(all.steps.map((s) => s.sessions)).toEqual([6, 4, 2, 2, 2]);
    // A 1 s window keeps A's step 2 (at exactly 1000 ms: the bound is inclusive) and drops the rest.
    const tight = await funnel(wh, { ...range, runId: 'r1', windowMs: 1000 });
    expect(tight.steps.map((s) => s.sessions)).toEqual([5, 3, 0, 0, 0]);
  });

  it('sums revenue per minute once per event', async () => {
    expect(await revenuePerMinute(wh, { ...range, runId: 'r1' })).toEqual([
      { minute: T0, revenueCents: 5000, payments: 1 },
    ]);
    expect(await revenuePerMinute(wh, range)).toEqual([
      { minute: T0, revenueCents: 5700, payments: 2 },
    ]);
  });

  it('sums revenue per minute from agg_windows: the latest version of each window, windows overlapping the range', async () => {
    const win = (start: number, version: number, cents: number, n: number, run = 'r1'): object => ({
      run_id: run,
      window_start: T0 + start,
      window_end: T0 + start + 10_000,
      event_type: 'payment_succeeded',
      event_count: n,
      amount_cents_sum: cents,
      distinct_sessions: n,
      version,
      is_final: 1,
      emitted_at: 1,
      kafka_partition: 0,
      kafka_offset: version,
      kafka_timestamp: 1,
      inserted_at: 1,
    });
    await wh.insertRows('agg_windows', [
      win(0, 1, 100, 1),
      win(0, 2, 300, 2), // a later emission of the same window supersedes the first
      win(0, 2, 300, 2), // a redelivery of it counts once
      win(50_000, 1, 40, 1),
      win(60_000, 1, 7, 1),
      win(-10_000, 1, 999, 9), // ends at the range start: outside
      win(0, 1, 555, 5, 'probe-1'),
    ]);
    expect(await revenuePerMinute(wh, { ...range, runId: 'r1' }, 'windows')).toEqual([
      { minute: T0, revenueCents: 340, payments: 3 },
      { minute: T0 + 60_000, revenueCents: 7, payments: 1 },
    ]);
    // A range starting inside a window still counts that window.
    expect(
      await revenuePerMinute(wh, { ...range, fromMs: T0 + 55_000, runId: 'r1' }, 'windows'),
    ).toEqual([
      { minute: T0, revenueCents: 40, payments: 1 },
      { minute: T0 + 60_000, revenueCents: 7, payments: 1 },
    ]);
  });

  it('ranks products by distinct views and add-to-carts', async () => {
    expect(await topProducts(wh, { ...range, runId: 'r1' }, 10)).toEqual({
      byViews: [
        { productId: 'p2', count: 3 },
        { productId: 'p1', count: 2 },
        { productId: 'p9', count: 1 },
      ],
      byAddToCart: [
        { productId: 'p1', count: 1 },
        { productId: 'p3', count: 1 },
      ],
    });
    const top1 = await topProducts(wh, { ...range, runId: 'r1' }, 1);
    expect(top1.byViews).toEqual([{ productId: 'p2', count: 3 }]);
  });

  it('ranks products the same from the rollup and the partial minutes as from the copy alone', async () => {
    const ranges = [
      range, // whole minutes only
      { ...range, fromMs: T0 + 150, toMs: T0 + 120_000 }, // a partial first minute
      { ...range, fromMs: T0 + 150, toMs: T0 + 60_002 }, // no whole minute: the copy alone
      { ...range, fromMs: T0 - 30_000, toMs: T0 + 90_000 }, // partial minutes at both ends
      { ...range, fromMs: T0 + 1000, toMs: T0 + 1001 }, // one millisecond
    ];
    for (const r of ranges)
      for (const runId of ['r1', undefined]) {
        const q = { ...r, runId };
        expect(await topProducts(wh, q, 10)).toEqual(
          await topProducts(wh, q, 10, DASHBOARD_TABLES.clean, null),
        );
      }
    // [T0+150, T0+120000): p9 from the rollup's minute T0+60000; A's and B's p1 from the edge,
    // which leaves out B's and C's p2 (at 100 and 0) and F's (at 7).
    expect(
      await topProducts(wh, { ...range, fromMs: T0 + 150, toMs: T0 + 120_000, runId: 'r1' }, 10),
    ).toEqual({
      byViews: [
        { productId: 'p1', count: 2 },
        { productId: 'p9', count: 1 },
      ],
      byAddToCart: [
        { productId: 'p1', count: 1 },
        { productId: 'p3', count: 1 },
      ],
    });
  });

  it('holds a redelivered block as a second state in the rollup, which uniqExactMerge counts once', async () => {
    const rows = await wh.query<{ states: number; events: number }>(
      `SELECT count() AS states, uniqExactMerge(events) AS events FROM ${PRODUCT_ROLLUP.table}
       WHERE run_id = 'r1' AND event_type = 'add_to_cart' AND product = 'p1'`,
    );
    // A's add_to_cart: twice in the first block (one state of one id) and once in a second block.
    expect(rows).toEqual([{ states: 2, events: 1 }]);
    // Null products and other event types are not in the rollup at all.
    const types = await wh.query<{ event_type: string }>(
      `SELECT DISTINCT event_type FROM ${PRODUCT_ROLLUP.table} ORDER BY event_type`,
    );
    expect(types.map((t) => t.event_type)).toEqual(['add_to_cart', 'product_view']);
  });

  it('counts active sessions and events in a range', async () => {
    expect(await activeSessions(wh, { ...range, runId: 'r1' })).toEqual({
      sessions: 6,
      events: 15,
    });
    expect(await activeSessions(wh, { ...range, toMs: T0 + 1 })).toEqual({
      sessions: 6,
      events: 6,
    });
  });

  it('counts dead letters by reason, each record once', async () => {
    expect(await deadLettersByReason(wh, { ...range, runId: 'r1' })).toEqual([
      { reason: 'bad_magic', count: 2 },
      { reason: 'truncated', count: 1 },
    ]);
  });

  it('reads the same answers from the time-ordered copies as from the source tables', async () => {
    const r1 = { ...range, runId: 'r1' };
    const on = async (t: {
      clean: string;
      dlq: string;
      windows: string;
      rollup: string | null;
    }): Promise<unknown> => ({
      funnel: await funnel(wh, { ...range, windowMs: WINDOW }, t.clean),
      revenue: await revenuePerMinute(wh, range, 'clean', t.clean),
      windows: await revenuePerMinute(wh, r1, 'windows', t.windows),
      top: await topProducts(wh, range, 10, t.clean, t.rollup),
      active: await activeSessions(wh, range, t.clean),
      dlq: await deadLettersByReason(wh, r1, t.dlq),
    });
    const copies = await on({ ...DASHBOARD_TABLES, rollup: PRODUCT_ROLLUP.table });
    expect(copies).toEqual(await on({ ...SOURCE_TABLES, rollup: null }));
    expect((copies as { funnel: { steps: unknown[] } }).funnel.steps).toHaveLength(5);
  });

  it("keeps sessions of different runs apart in the copy's one-String session key", async () => {
    // (r1, 2X) and (r12, X) would collide under a plain concatenation; the key is length-prefixed.
    const later = 3_600_000;
    await wh.insertRows('events_clean', [
      ev('r1', '2X', 'page_view', later),
      ev('r12', 'X', 'page_view', later),
    ]);
    const hour = { fromMs: T0 + later, toMs: T0 + later + 60_000, excludeRunPrefix: probe };
    for (const t of [DASHBOARD_TABLES, SOURCE_TABLES])
      expect((await funnel(wh, { ...hour, windowMs: WINDOW }, t.clean)).steps[0]?.sessions).toBe(2);
  });

  it('copies every inserted block, redeliveries included, which the reads count once', async () => {
    const raw = async (sql: string): Promise<number> =>
      Number((await wh.query<{ n: number }>(sql))[0]?.n);
    // A's add_to_cart and payment: in the first block twice and in a second block once more.
    expect(
      await raw(
        `SELECT count() AS n FROM ${DASHBOARD_TABLES.clean} WHERE run_id = 'r1' AND session_id = 'A'`,
      ),
    ).toBe(5 + 4);
    expect(
      await raw(
        `SELECT count() AS n FROM ${DASHBOARD_TABLES.dlq} WHERE run_id = 'r1' AND kafka_offset = 2`,
      ),
    ).toBe(2);
    expect(
      await raw(`SELECT count() AS n FROM ${DASHBOARD_TABLES.windows} WHERE run_id = 'r1'`),
    ).toBe(6); // every emission and the redelivered one: argMax(.., version) reads the latest
  });

  it('rejects a bad range before asking the server', async () => {
    await expect(funnel(wh, { ...range, toMs: T0, windowMs: 1 })).rejects.toThrow(/range/);
    await expect(topProducts(wh, range, 0)).rejects.toThrow(/limit/);
  });
});
