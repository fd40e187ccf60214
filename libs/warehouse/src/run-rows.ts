/**
 * Reads one run's rows of an event table as a dashboard sees them (FINAL), with the counts a
 * checker needs to tell real duplicates from rows ReplacingMergeTree has not merged yet.
 */
import { TABLES, type EventTableRole } from './tables';
import type { Warehouse } from './types';

/** The ORDER BY of each event table (infra/clickhouse/ddl): raw rows per key beyond one are unmerged duplicates. */
export const EVENT_TABLE_KEYS = {
  valid: ['run_id', 'seq', 'kafka_partition', 'kafka_offset'],
  dlq: ['run_id', 'seq', 'kafka_partition', 'kafka_offset'],
  clean: ['run_id', 'event_id'],
  late: ['run_id', 'event_id'],
} as const satisfies Record<EventTableRole, readonly string[]>;

/** One row of a run under FINAL: the seq, plus the reason (dlq) or the event_id (clean). */
export interface RunRow {
  seq: number;
  reason?: string;
  event_id?: string;
}

export interface RunRows {
  table: string;
  /** This run's rows with FINAL, in the server's order. */
  rows: RunRow[];
  /** This run's stored rows before merges (>= rows.length; more means unmerged duplicates). */
  raw: number;
  /** Rows of other runs in the table (the probe, earlier runs). */
  otherRuns: number;
  /** When raw > rows: the seqs of up to `examples` keys that hold more than one stored row. */
  unmerged: number[][];
}

const EXTRA_COLUMN: Record<EventTableRole, string> = {
  valid: '',
  dlq: ', reason',
  clean: ', event_id',
  late: ', event_id',
};

/** This run's rows of the table of `role`, read with FINAL, and how many stored rows FINAL collapsed. */
export async function readRunRows(
  wh: Pick<Warehouse, 'query'>,
  role: EventTableRole,
  runId: string,
  examples = 5,
): Promise<RunRows> {
  const table = TABLES[role];
  const run = { run: runId };
  const rows = await wh.query<RunRow>(
    `SELECT toInt64(seq) AS seq${EXTRA_COLUMN[role]} FROM ${table} FINAL WHERE run_id = {run:String}`,
    run,
  );
  const [totals] = await wh.query<{ raw: number; other_runs: number }>(
    `SELECT countIf(run_id = {run:String}) AS raw, countIf(run_id != {run:String}) AS other_runs FROM ${table}`,
    run,
  );
  const raw = Number(totals?.raw ?? 0);
  let unmerged: number[][] = [];
  if (raw > rows.length) {
    const groups = await wh.query<{ seqs: number[]; n: number }>(
      `SELECT groupArray(toInt64(seq)) AS seqs, count() AS n FROM ${table} WHERE run_id = {run:String} GROUP BY ${EVENT_TABLE_KEYS[role].join(', ')} HAVING n > 1 LIMIT {examples:UInt32}`,
      { ...run, examples: Math.max(0, Math.floor(examples)) },
    );
    unmerged = groups.map((g) => g.seqs);
  }
  return { table, rows, raw, otherRuns: Number(totals?.other_runs ?? 0), unmerged };
}

/** One Kafka record of a run as a table stores it, however often the loader wrote it. */
export interface RunRecord {
  seq: number;
  reason?: string;
  event_id?: string;
  kafka_topic: string;
  kafka_partition: number;
  kafka_offset: number;
  /** Stored rows of this record: more than one are the loader's own at-least-once redeliveries. */
  copies: number;
}

export interface RunRecords {
  table: string;
  /** One entry per distinct source Kafka record (topic, partition, offset) of this run. */
  records: RunRecord[];
  /** This run's stored rows (the sum of copies). */
  raw: number;
  otherRuns: number;
}

/**
 * This run's rows of an event table WITHOUT FINAL, grouped by the Kafka record each row was loaded
 * from. FINAL would collapse rows by the table key, and for the tables keyed on the event
 * (events_clean, events_late) that hides two different upstream records of one event as well as
 * the loader's redeliveries; grouping by (topic, partition, offset) collapses only the latter.
 */
export async function readRunRecords(
  wh: Pick<Warehouse, 'query'>,
  role: EventTableRole,
  runId: string,
): Promise<RunRecords> {
  const table = TABLES[role];
  const run = { run: runId };
  const extra = EXTRA_COLUMN[role];
  const records = await wh.query<RunRecord>(
    `SELECT toInt64(seq) AS seq${extra}, kafka_topic, kafka_partition, kafka_offset, count() AS copies FROM ${table} WHERE run_id = {run:String} GROUP BY seq${extra}, kafka_topic, kafka_partition, kafka_offset`,
    run,
  );
  const [totals] = await wh.query<{ other_runs: number }>(
    `SELECT count() AS other_runs FROM ${table} WHERE run_id != {run:String}`,
    run,
  );
  const raw = records.reduce((n, r) => n + Number(r.copies), 0);
  return { table, records, raw, otherRuns: Number(totals?.other_runs ?? 0) };
}

/**
 * The gatekeeper's ingest_time stamps of this run's valid rows, ascending (ms since the epoch): a
 * gap in them is a time in which the gatekeeper committed none of the run's events. Read without
 * FINAL and collapsed with DISTINCT, so unmerged loader redeliveries do not matter.
 */
export async function readRunIngestTimes(
  wh: Pick<Warehouse, 'query'>,
  runId: string,
): Promise<number[]> {
  const rows = await wh.query<{ t: number | string }>(
    `SELECT DISTINCT toInt64(ingest_time) AS t FROM ${TABLES.valid} WHERE run_id = {run:String} AND ingest_time IS NOT NULL ORDER BY t`,
    { run: runId },
  );
  return rows.map((r) => Number(r.t));
}
