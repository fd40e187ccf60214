/**
 * The aggregate tables (agg_windows, agg_sessions): pure row mappers from a decoded agg.windows /
 * agg.sessions value, and the run reads a checker needs (FINAL, plus what FINAL collapsed).
 */
import type { SessionAggregate, WindowAggregate } from '@clickstream/contracts';
import { TABLES } from './tables';
import type { RecordMeta, Warehouse } from './types';

/** A row of agg_windows: the emission plus where it came from in Kafka. */
export interface WindowRow {
  run_id: string;
  window_start: number;
  window_end: number;
  event_type: string;
  event_count: number;
  amount_cents_sum: number;
  distinct_sessions: number;
  version: number;
  is_final: 0 | 1;
  emitted_at: number;
  kafka_partition: number;
  kafka_offset: number;
  kafka_timestamp: number;
  inserted_at: number;
}

/** A row of agg_sessions. */
export interface SessionRow {
  run_id: string;
  session_id: string;
  session_start: number;
  session_end: number;
  event_count: number;
  revenue_cents: number;
  converted: 0 | 1;
  version: number;
  is_final: 0 | 1;
  retracted: 0 | 1;
  emitted_at: number;
  kafka_partition: number;
  kafka_offset: number;
  kafka_timestamp: number;
  inserted_at: number;
}

const flag = (b: boolean): 0 | 1 => (b ? 1 : 0);

function meta(m: RecordMeta, insertedAt: number) {
  return {
    kafka_partition: m.partition,
    kafka_offset: m.offset,
    kafka_timestamp: m.timestamp,
    inserted_at: insertedAt,
  };
}

export function toWindowRow(w: WindowAggregate, m: RecordMeta, insertedAt: number): WindowRow {
  return {
    run_id: w.run_id,
    window_start: w.window_start,
    window_end: w.window_end,
    event_type: w.event_type,
    event_count: w.event_count,
    amount_cents_sum: w.amount_cents_sum,
    distinct_sessions: w.distinct_sessions,
    version: w.version,
    is_final: flag(w.is_final),
    emitted_at: w.emitted_at,
    ...meta(m, insertedAt),
  };
}

export function toSessionRow(s: SessionAggregate, m: RecordMeta, insertedAt: number): SessionRow {
  return {
    run_id: s.run_id,
    session_id: s.session_id,
    session_start: s.session_start,
    session_end: s.session_end,
    event_count: s.event_count,
    revenue_cents: s.revenue_cents,
    converted: flag(s.converted),
    version: s.version,
    is_final: flag(s.is_final),
    retracted: flag(s.retracted),
    emitted_at: s.emitted_at,
    ...meta(m, insertedAt),
  };
}

/** The ORDER BY of each aggregate table (infra/clickhouse/ddl). */
export const AGGREGATE_TABLE_KEYS = {
  windows: ['run_id', 'window_start', 'event_type'],
  sessions: ['run_id', 'session_id', 'session_start'],
} as const;

/** One run's rows of an aggregate table, as FINAL shows them (latest version per key). */
export interface AggregateRows<T> {
  table: string;
  /** FINAL rows of the run (retracted sessions included: the checker decides what they mean). */
  rows: T[];
  /** Stored rows of the run before merges (superseded versions and redeliveries included). */
  raw: number;
}

/** The window aggregate as read back (booleans as booleans; Kafka columns dropped). */
export type StoredWindow = Omit<WindowAggregate, 'emitted_at'>;
export type StoredSession = Omit<SessionAggregate, 'emitted_at'>;

async function rawCount(
  wh: Pick<Warehouse, 'query'>,
  table: string,
  runId: string,
): Promise<number> {
  const [row] = await wh.query<{ n: number }>(
    `SELECT count() AS n FROM ${table} WHERE run_id = {run:String}`,
    { run: runId },
  );
  return Number(row?.n ?? 0);
}

/** This run's agg_windows rows read with FINAL. */
export async function readWindowRows(
  wh: Pick<Warehouse, 'query'>,
  runId: string,
): Promise<AggregateRows<StoredWindow>> {
  const table = TABLES.windows;
  const rows = await wh.query<Record<string, unknown>>(
    `SELECT run_id, window_start, window_end, event_type, event_count, amount_cents_sum, distinct_sessions, toInt64(version) AS version, is_final FROM ${table} FINAL WHERE run_id = {run:String}`,
    { run: runId },
  );
  return {
    table,
    rows: rows.map((r) => ({
      run_id: String(r.run_id),
      window_start: Number(r.window_start),
      window_end: Number(r.window_end),
      event_type: String(r.event_type),
      event_count: Number(r.event_count),
      amount_cents_sum: Number(r.amount_cents_sum),
      distinct_sessions: Number(r.distinct_sessions),
      version: Number(r.version),
      is_final: Number(r.is_final) === 1,
    })),
    raw: await rawCount(wh, table, runId),
  };
}

/** This run's agg_sessions rows read with FINAL (retracted rows included, flagged). */
export async function readSessionRows(
  wh: Pick<Warehouse, 'query'>,
  runId: string,
): Promise<AggregateRows<StoredSession>> {
  const table = TABLES.sessions;
  const rows = await wh.query<Record<string, unknown>>(
    `SELECT run_id, session_id, session_start, session_end, event_count, revenue_cents, converted, toInt64(version) AS version, is_final, retracted FROM ${table} FINAL WHERE run_id = {run:String}`,
    { run: runId },
  );
  return {
    table,
    rows: rows.map((r) => ({
      run_id: String(r.run_id),
      session_id: String(r.session_id),
      session_start: Number(r.session_start),
      session_end: Number(r.session_end),
      event_count: Number(r.event_count),
      revenue_cents: Number(r.revenue_cents),
      converted: Number(r.converted) === 1,
      version: Number(r.version),
      is_final: Number(r.is_final) === 1,
      retracted: Number(r.retracted) === 1,
    })),
    raw: await rawCount(wh, table, runId),
  };
}
