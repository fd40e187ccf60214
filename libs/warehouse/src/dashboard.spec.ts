import {
  activeSessions,
  DASHBOARD_TABLES,
  deadLettersByReason,
  funnel,
  MAX_WINDOW_MS,
  revenuePerMinute,
  SOURCE_TABLES,
  topProducts,
  wholeMinutes,
} from './dashboard';
import { DASHBOARD_COPIES, PRODUCT_ROLLUP } from './tables';
import type { Params } from './types';

function recorder(): {
  reader: { query: <T>(sql: string, p?: Params) => Promise<T[]> };
  seen: { sql: string; params: Params }[];
} {
  const seen: { sql: string; params: Params }[] = [];
  return {
    seen,
    reader: {
      query: <T>(sql: string, params: Params = {}) => {
        seen.push({ sql, params });
        return Promise.resolve([] as T[]);
      },
    },
  };
}

const range = { fromMs: 1_760_000_000_000, toMs: 1_760_000_900_000, excludeRunPrefix: 'probe-' };
const fromOf = (sql: string): string[] =>
  [...sql.matchAll(/FROM ([a-z_]+)/g)].map((m) => m[1] as string);

describe('dashboard reads', () => {
  it('read the time-ordered copies by default, the copies of the source tables', async () => {
    expect(DASHBOARD_TABLES).toEqual({
      clean: DASHBOARD_COPIES.events.table,
      dlq: DASHBOARD_COPIES.dlq.table,
      windows: DASHBOARD_COPIES.windows.table,
    });
    expect(SOURCE_TABLES).toEqual({
      clean: DASHBOARD_COPIES.events.source,
      dlq: DASHBOARD_COPIES.dlq.source,
      windows: DASHBOARD_COPIES.windows.source,
    });
    const { reader, seen } = recorder();
    await funnel(reader, { ...range, windowMs: 60_000 });
    await revenuePerMinute(reader, range, 'windows');
    await revenuePerMinute(reader, range, 'clean');
    await topProducts(reader, range, 10);
    await activeSessions(reader, range);
    await deadLettersByReason(reader, range);
    expect(seen.map((s) => fromOf(s.sql).filter((t) => t.includes('_')))).toEqual([
      ['events_by_time'],
      ['agg_windows_by_time'],
      ['events_by_time'],
      ['product_minutes', 'events_by_time'],
      ['events_by_time'],
      ['events_dlq_by_time'],
    ]);
    // Exact without FINAL (a merge on read would cost what the copies save).
    for (const s of seen) expect(s.sql).not.toMatch(/FINAL/);
  });

  it('read the source tables when asked (the benchmark layout before)', async () => {
    const { reader, seen } = recorder();
    await funnel(reader, { ...range, windowMs: 60_000 }, SOURCE_TABLES.clean);
    await revenuePerMinute(reader, range, 'windows', SOURCE_TABLES.windows);
    await deadLettersByReason(reader, range, SOURCE_TABLES.dlq);
    await topProducts(reader, range, 10, SOURCE_TABLES.clean, null);
    expect(seen.map((s) => fromOf(s.sql).filter((t) => t.includes('_')))).toEqual([
      ['events_clean'],
      ['agg_windows'],
      ['events_dlq'],
      ['events_clean'],
    ]);
  });

  it.each([
    // [from, to) -> its whole minutes
    [60_000, 180_000, 60_000, 180_000],
    [59_999, 180_001, 60_000, 180_000],
    // 120_000 is the only minute start inside, and no whole minute follows it: empty.
    [60_001, 179_999, 60_001, 60_001],
    [61_000, 62_000, 61_000, 61_000],
  ])(
    'wholeMinutes [%d, %d) = [%d, %d): inwards to minute starts, empty without a whole minute',
    (fromMs, toMs, wholeFrom, wholeTo) => {
      expect(wholeMinutes({ fromMs, toMs })).toEqual({ fromMs: wholeFrom, toMs: wholeTo });
    },
  );

  it('top products: whole minutes from the rollup states, the partial minutes at the edges from the copy', async () => {
    const { reader, seen } = recorder();
    const odd = { ...range, fromMs: range.fromMs + 12_345, toMs: range.toMs + 6_789, runId: 'r1' };
    await topProducts(reader, odd, 5);
    const [q] = seen;
    expect(q?.sql).toMatch(
      new RegExp(
        `uniqExactMerge\\(events\\) AS part\\s+FROM ${PRODUCT_ROLLUP.table}\\s+WHERE minute >= \\{wholeFrom:Int64\\} AND minute < \\{wholeTo:Int64\\}`,
      ),
    );
    expect(q?.sql).toMatch(
      /event_time >= \{from:Int64\} AND event_time < \{to:Int64\} AND \(event_time < \{wholeFrom:Int64\} OR event_time >= \{wholeTo:Int64\}\)/,
    );
    // Both parts filter on the run and the probe prefix, and group per run before summing.
    expect(q?.sql.match(/AND run_id = \{run:String\}/g)).toHaveLength(2);
    expect(q?.sql.match(/NOT startsWith\(run_id, \{probe:String\}\)/g)).toHaveLength(2);
    expect(q?.sql.match(/GROUP BY event_type, pid, run_id/g)).toHaveLength(2);
    expect(q?.params).toEqual({
      from: odd.fromMs,
      to: odd.toMs,
      wholeFrom: wholeMinutes(odd).fromMs,
      wholeTo: wholeMinutes(odd).toMs,
      probe: 'probe-',
      run: 'r1',
      limit: 5,
    });
    expect(wholeMinutes(odd).fromMs % 60_000).toBe(0);
    await expect(topProducts(reader, range, 5, DASHBOARD_TABLES.clean, 'x y')).rejects.toThrow(
      /rollup "x y" is not a plain identifier/,
    );
  });

  it('funnel: on the copy, groups by the stored session key and step; elsewhere computes them', async () => {
    const { reader, seen } = recorder();
    await funnel(reader, { ...range, windowMs: 60_000 });
    await funnel(reader, { ...range, windowMs: 60_000 }, SOURCE_TABLES.clean);
    const [copy, source] = seen;
    expect(copy?.sql).toMatch(/funnel_step >= 0/);
    expect(copy?.sql).toMatch(/GROUP BY session_key/);
    expect(copy?.params.steps).toBeUndefined();
    expect(source?.sql).toMatch(/GROUP BY run_id, session_id/);
    expect(source?.params.steps).toEqual([
      'page_view',
      'product_view',
      'add_to_cart',
      'checkout_started',
      'payment_succeeded',
    ]);
    for (const q of seen) expect(q.params.window).toBe(60_000 * 5 + 4);
  });

  it('bound window_start from below so that the revenue read prunes on the first key column', async () => {
    const { reader, seen } = recorder();
    await revenuePerMinute(reader, { ...range, runId: 'r1' }, 'windows');
    const [q] = seen;
    expect(q?.sql).toMatch(
      /window_start > \{lookback:Int64\} AND window_start < \{to:Int64\} AND window_end > \{from:Int64\}/,
    );
    expect(q?.params).toMatchObject({
      lookback: range.fromMs - MAX_WINDOW_MS,
      from: range.fromMs,
      to: range.toMs,
      run: 'r1',
    });
  });

  it('refuse a table name that is not a plain identifier', async () => {
    const { reader, seen } = recorder();
    await expect(funnel(reader, { ...range, windowMs: 1 }, 'x; DROP TABLE y')).rejects.toThrow(
      /not a plain identifier/,
    );
    expect(seen).toHaveLength(0);
  });
});
