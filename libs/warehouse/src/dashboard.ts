/**
 * The dashboard's reads: the funnel, revenue per minute, top products, sessions active now and
 * dead letters by reason. Every statement is a constant template with typed `{name:Type}`
 * placeholders (bound by params.ts); optional filters pick between constant fragments, so no SQL
 * is ever built from caller text. Works on ClickHouse 18.16 and current ClickHouse.
 *
 * Exactness without FINAL: every aggregate here is insensitive to the loader's not-yet-merged
 * redeliveries (the same event stored twice): counts are `uniqExact` of the table's key, the
 * revenue sums one row per (run_id, event_id), and windowFunnel reaches the same level whether an
 * event appears once or twice. Probe events (run ids starting with `excludeRunPrefix`) never count.
 * Each read takes the table it reads, checked as an identifier. The default is the time-ordered
 * copy of the source table (DASHBOARD_TABLES, infra/clickhouse/ddl/008_dashboard_by_time.sql:
 * ORDER BY the time column first, so a range reads only its granules); the same reads run on the
 * source tables (SOURCE_TABLES, same answers), which the benchmark times as the layout before.
 * The top products read, besides, merges the per-minute uniqExact states of the product rollup
 * (PRODUCT_ROLLUP, 009_product_minutes.sql) for the whole minutes of its range.
 */
import { assertIdentifier } from './ddl';
import { PRODUCT_ROLLUP } from './tables';
import type { Params, Warehouse } from './types';

type Reader = Pick<Warehouse, 'query'>;

/** The funnel's steps, in order. */
export const FUNNEL_STEPS = [
  'page_view',
  'product_view',
  'add_to_cart',
  'checkout_started',
  'payment_succeeded',
] as const;
export type FunnelStep = (typeof FUNNEL_STEPS)[number];

/** Longest range a funnel may cover: (event_time - from) * 5 + step must fit windowFunnel's UInt32. */
export const MAX_FUNNEL_RANGE_MS = 7 * 24 * 3600 * 1000;
/** Scale of the funnel's timestamps: 5 slots per ms, one per step, so ties order by step. */
const FUNNEL_SCALE = FUNNEL_STEPS.length;

/** Which rows a dashboard read covers: event time in [fromMs, toMs), optionally one run. */
export interface DashboardRange {
  fromMs: number;
  toMs: number;
  /** Only this run (e.g. a seeded run being checked); undefined = every run. */
  runId?: string | undefined;
  /** Runs whose id starts with this never count (the probe's, PROBE_RUN_PREFIX of contracts). */
  excludeRunPrefix: string;
}

export interface FunnelQuery extends DashboardRange {
  /** A session reaches step k when steps 1..k happen in order within this many ms of its step 1. */
  windowMs: number;
}

export interface FunnelResult {
  /** sessions[k] = sessions that reached at least step k+1 (so sessions[0] = sessions with a page_view). */
  steps: { step: FunnelStep; sessions: number }[];
}

export interface RevenueMinute {
  /** Start of the minute, epoch ms. */
  minute: number;
  /** Sum of amount_cents of payment_succeeded (minor units; currencies are not converted). */
  revenueCents: number;
  payments: number;
}

export interface ProductCount {
  productId: string;
  count: number;
}

export interface TopProducts {
  byViews: ProductCount[];
  byAddToCart: ProductCount[];
}

export interface ReasonCount {
  reason: string;
  count: number;
}

/** Where the revenue comes from: the clean events, or the window aggregates (agg_windows) once they exist. */
export type RevenueSource = 'clean' | 'windows';

/** What the dashboard reads: the time-ordered copies, each fed row for row by a materialized view. */
export const DASHBOARD_TABLES = {
  clean: 'events_by_time',
  dlq: 'events_dlq_by_time',
  windows: 'agg_windows_by_time',
} as const;

/** The tables the copies come from (keyed for exactness, not for time ranges); same columns, same answers. */
export const SOURCE_TABLES = {
  clean: 'events_clean',
  dlq: 'events_dlq',
  windows: 'agg_windows',
} as const;

/**
 * No window of agg_windows is longer than this (the windows job's are 10 s). The revenue read asks
 * for window_start > from - this as well as window_end > from: the same rows, but a condition on the
 * copy's first key column, so that the read skips the windows before the range.
 */
export const MAX_WINDOW_MS = 3_600_000;

/**
 * The whole minutes of a range, [fromMs, toMs) rounded inwards to minute starts; empty
 * (fromMs = toMs = r.fromMs) when the range holds no whole minute.
 */
export function wholeMinutes(r: Pick<DashboardRange, 'fromMs' | 'toMs'>): {
  fromMs: number;
  toMs: number;
} {
  const fromMs = Math.ceil(r.fromMs / 60_000) * 60_000;
  const toMs = Math.floor(r.toMs / 60_000) * 60_000;
  return fromMs < toMs ? { fromMs, toMs } : { fromMs: r.fromMs, toMs: r.fromMs };
}

function checkRange(r: DashboardRange): void {
  if (!Number.isSafeInteger(r.fromMs) || !Number.isSafeInteger(r.toMs) || r.toMs <= r.fromMs)
    throw new RangeError(`range: expected integer ms with from < to, got [${r.fromMs}, ${r.toMs})`);
}

/** The WHERE fragment shared by every event read; `run` chooses between two constant texts. */
function eventFilter(
  r: DashboardRange,
  timeColumn: 'event_time' | 'kafka_timestamp' | 'window' | 'minute' | 'edges',
): { sql: string; params: Params } {
  const params: Params = { from: r.fromMs, to: r.toMs, probe: r.excludeRunPrefix };
  // Constant texts only; a 10 s window counts when it overlaps the range. 'minute' is the rollup's
  // whole minutes of the range, 'edges' the events of the range outside them (the outer bounds
  // keep the read to the range's granules whether or not the OR is used for the index).
  const TIME_FILTERS = {
    event_time: 'event_time >= {from:Int64} AND event_time < {to:Int64}',
    kafka_timestamp: 'kafka_timestamp >= {from:Int64} AND kafka_timestamp < {to:Int64}',
    window:
      'window_start > {lookback:Int64} AND window_start < {to:Int64} AND window_end > {from:Int64}',
    minute: 'minute >= {wholeFrom:Int64} AND minute < {wholeTo:Int64}',
    edges:
      'event_time >= {from:Int64} AND event_time < {to:Int64} AND (event_time < {wholeFrom:Int64} OR event_time >= {wholeTo:Int64})',
  } as const;
  if (timeColumn === 'window') params.lookback = r.fromMs - MAX_WINDOW_MS;
  if (timeColumn === 'minute' || timeColumn === 'edges') {
    const whole = wholeMinutes(r);
    params.wholeFrom = whole.fromMs;
    params.wholeTo = whole.toMs;
  }
  let sql: string = TIME_FILTERS[timeColumn];
  sql += ' AND NOT startsWith(run_id, {probe:String})';
  if (r.runId !== undefined) {
    sql += ' AND run_id = {run:String}';
    params.run = r.runId;
  }
  return { sql, params };
}

/**
 * Sessions per funnel step with windowFunnel, per session of a run. 18.16's windowFunnel takes
 * UInt32 or DateTime only and orders events of the same timestamp by input order, so the timestamp
 * is (event_time - from) * 5 + step index: ms resolution, and ties order by step on every version.
 * The window is then scaled to 5 * windowMs + 4, which makes "within windowMs" inclusive.
 */
export async function funnel(
  wh: Reader,
  q: FunnelQuery,
  table: string = DASHBOARD_TABLES.clean,
): Promise<FunnelResult> {
  assertIdentifier('table', table);
  checkRange(q);
  if (q.toMs - q.fromMs > MAX_FUNNEL_RANGE_MS)
    throw new RangeError(
      `range: a funnel covers at most ${MAX_FUNNEL_RANGE_MS} ms, got ${q.toMs - q.fromMs}`,
    );
  if (!Number.isSafeInteger(q.windowMs) || q.windowMs <= 0)
    throw new RangeError(`windowMs: expected a positive integer, got ${q.windowMs}`);
  const f = eventFilter(q, 'event_time');
  // The copy stores the step and a one-String session key (008_dashboard_by_time.sql: length(run_id)
  // ':' run_id session_id, injective, so it groups the same sessions as (run_id, session_id) with one
  // hash key, half the time on 18.16); any other table computes the step and groups by both columns.
  // Both texts are constant.
  const copy = table === DASHBOARD_TABLES.clean;
  const perSession = copy
    ? `SELECT windowFunnel({window:UInt64})(t, step = 0, step = 1, step = 2, step = 3, step = 4) AS level
         FROM (
           SELECT session_key, funnel_step AS step,
                  toUInt32((event_time - {from:Int64}) * ${FUNNEL_SCALE} + step) AS t
           FROM ${table}
           WHERE ${f.sql} AND funnel_step >= 0
         )
         GROUP BY session_key`
    : `SELECT windowFunnel({window:UInt64})(t, step = 0, step = 1, step = 2, step = 3, step = 4) AS level
         FROM (
           SELECT run_id, session_id, indexOf({steps:Array(String)}, event_type) - 1 AS step,
                  toUInt32((event_time - {from:Int64}) * ${FUNNEL_SCALE} + step) AS t
           FROM ${table}
           WHERE ${f.sql} AND has({steps:Array(String)}, event_type)
         )
         GROUP BY run_id, session_id`;
  const rows = await wh.query<{ level: number; sessions: number }>(
    `SELECT level, count() AS sessions FROM (${perSession}) GROUP BY level`,
    {
      ...f.params,
      window: q.windowMs * FUNNEL_SCALE + (FUNNEL_SCALE - 1),
      ...(copy ? {} : { steps: [...FUNNEL_STEPS] }),
    },
  );
  const atLevel = new Array<number>(FUNNEL_STEPS.length + 1).fill(0);
  for (const r of rows) atLevel[Number(r.level)] = Number(r.sessions);
  let reached = 0;
  const steps = FUNNEL_STEPS.map((step) => ({ step, sessions: 0 }));
  for (let k = FUNNEL_STEPS.length; k >= 1; k--) {
    reached += atLevel[k] ?? 0;
    (steps[k - 1] as { sessions: number }).sessions = reached;
  }
  return { steps };
}

/**
 * Revenue per minute of event time: from the clean events (one row per (run_id, event_id), whatever
 * the loader redelivered) or from the window aggregates. `table` defaults to the source's copy.
 */
export async function revenuePerMinute(
  wh: Reader,
  r: DashboardRange,
  source: RevenueSource = 'clean',
  table: string = source === 'clean' ? DASHBOARD_TABLES.clean : DASHBOARD_TABLES.windows,
): Promise<RevenueMinute[]> {
  assertIdentifier('table', table);
  checkRange(r);
  const f = eventFilter(r, source === 'clean' ? 'event_time' : 'window');
  // Both sources are constant texts. 'windows' reads the exact per-window aggregates of the
  // windows job (issue #12): keyed by (run_id, window_start, event_type) with a version, so
  // argMax(.., version) per key is the current row; a 10 s window falls in one minute, and it
  // counts when it overlaps [from, to). It holds on-time events only (late ones: events_late).
  const sql =
    source === 'clean'
      ? `SELECT intDiv(t, 60000) * 60000 AS minute, sum(amount) AS revenueCents, count() AS payments
         FROM (
           SELECT any(event_time) AS t, ifNull(any(amount_cents), 0) AS amount
           FROM ${table}
           WHERE ${f.sql} AND event_type = 'payment_succeeded'
           GROUP BY run_id, event_id
         )
         GROUP BY minute ORDER BY minute`
      : `SELECT intDiv(window_start, 60000) * 60000 AS minute, sum(amount) AS revenueCents, sum(n) AS payments
         FROM (
           SELECT window_start, argMax(amount_cents_sum, version) AS amount, argMax(event_count, version) AS n
           FROM ${table}
           WHERE ${f.sql} AND event_type = 'payment_succeeded'
           GROUP BY run_id, window_start, event_type
         )
         GROUP BY minute ORDER BY minute`;
  const rows = await wh.query<RevenueMinute>(sql, f.params);
  return rows.map((x) => ({
    minute: Number(x.minute),
    revenueCents: Number(x.revenueCents),
    payments: Number(x.payments),
  }));
}

/**
 * The `limit` most viewed and most added-to-cart products (distinct events; ties by product id).
 * With a rollup (the default), the whole minutes of the range come from its uniqExact states
 * (uniqExactMerge per run, product and type: each event id once, however often its block was
 * inserted) and the partial minutes at the edges from `table`; an event lies in one minute, so the
 * two parts never share an event and their sum is the distinct count. `rollup = null` reads
 * `table` alone (the same answer).
 */
export async function topProducts(
  wh: Reader,
  r: DashboardRange,
  limit: number,
  table: string = DASHBOARD_TABLES.clean,
  rollup: string | null = PRODUCT_ROLLUP.table,
): Promise<TopProducts> {
  assertIdentifier('table', table);
  if (rollup !== null) assertIdentifier('rollup', rollup);
  checkRange(r);
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new RangeError(`limit: expected a positive integer, got ${limit}`);
  const products = `event_type IN ('product_view', 'add_to_cart') AND isNotNull(product_id)`;
  let rows: { event_type: string; pid: string; n: number }[];
  if (rollup === null) {
    const f = eventFilter(r, 'event_time');
    rows = await wh.query(
      `SELECT event_type, assumeNotNull(product_id) AS pid, uniqExact(run_id, event_id) AS n
       FROM ${table}
       WHERE ${f.sql} AND ${products}
       GROUP BY event_type, pid
       ORDER BY event_type, n DESC, pid
       LIMIT {limit:UInt32} BY event_type`,
      { ...f.params, limit },
    );
  } else {
    const whole = eventFilter(r, 'minute');
    const edges = eventFilter(r, 'edges');
    rows = await wh.query(
      `SELECT event_type, pid, sum(part) AS n
       FROM (
         SELECT event_type, product AS pid, uniqExactMerge(events) AS part
         FROM ${rollup}
         WHERE ${whole.sql}
         GROUP BY event_type, pid, run_id
         UNION ALL
         SELECT event_type, assumeNotNull(product_id) AS pid, uniqExact(event_id) AS part
         FROM ${table}
         WHERE ${edges.sql} AND ${products}
         GROUP BY event_type, pid, run_id
       )
       GROUP BY event_type, pid
       ORDER BY event_type, n DESC, pid
       LIMIT {limit:UInt32} BY event_type`,
      { ...whole.params, ...edges.params, limit },
    );
  }
  const pick = (type: string): ProductCount[] =>
    rows
      .filter((x) => x.event_type === type)
      .map((x) => ({ productId: x.pid, count: Number(x.n) }));
  return { byViews: pick('product_view'), byAddToCart: pick('add_to_cart') };
}

/** Sessions with at least one event whose event time is in [fromMs, toMs) (the dashboard asks for the last few minutes). */
export async function activeSessions(
  wh: Reader,
  r: DashboardRange,
  table: string = DASHBOARD_TABLES.clean,
): Promise<{ sessions: number; events: number }> {
  assertIdentifier('table', table);
  checkRange(r);
  const f = eventFilter(r, 'event_time');
  const rows = await wh.query<{ sessions: number; events: number }>(
    `SELECT uniqExact(run_id, session_id) AS sessions, uniqExact(run_id, event_id) AS events
     FROM ${table} WHERE ${f.sql}`,
    f.params,
  );
  return { sessions: Number(rows[0]?.sessions ?? 0), events: Number(rows[0]?.events ?? 0) };
}

/** Dead letters per reason whose DLQ record was written in [fromMs, toMs) (Kafka timestamp); each record once. */
export async function deadLettersByReason(
  wh: Reader,
  r: DashboardRange,
  table: string = DASHBOARD_TABLES.dlq,
): Promise<ReasonCount[]> {
  assertIdentifier('table', table);
  checkRange(r);
  const f = eventFilter(r, 'kafka_timestamp');
  const rows = await wh.query<{ reason: string; n: number }>(
    `SELECT reason, uniqExact(kafka_topic, kafka_partition, kafka_offset) AS n
     FROM ${table} WHERE ${f.sql}
     GROUP BY reason ORDER BY n DESC, reason`,
    f.params,
  );
  return rows.map((x) => ({ reason: x.reason, count: Number(x.n) }));
}
