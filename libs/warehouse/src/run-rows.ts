/**
 * Reads one run's rows of an event table as a dashboard sees them (FINAL), with the counts a
 * checker needs to tell real duplicates from rows ReplacingMergeTree has not merged yet.
 */
import { TABLES, type EventTableRole } from './tables';
import { encodeRowBinary, RowBinaryRows, type RowBinaryType } from './row-binary';
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

/** One row of scanRunRecords: a reused object, read during the visit. */
export interface RunRecordRow {
  seq: number;
  partition: number;
  offset: number;
  /** Stored rows of this record: more than one are the loader's own at-least-once redeliveries. */
  copies: number;
  /** The topic the row was loaded from when it is not the one asked for, else null. */
  otherTopic: string | null;
  /** The reason (dlq) or the event_id (clean, late); null for valid. */
  text: string | null;
}

export interface RunRecordsScan {
  table: string;
  /** Distinct source Kafka records of this run (rows visited). */
  records: number;
  /** This run's stored rows (the sum of copies). */
  raw: number;
  otherRuns: number;
}

/** The column holding each role's text, and the GROUP BY term that keeps it. */
const TEXT_COLUMN: Record<EventTableRole, string | null> = {
  valid: null,
  dlq: 'reason',
  clean: 'event_id',
  late: 'event_id',
};

const RECORD_TYPES: readonly RowBinaryType[] = [
  'Int64',
  'UInt32',
  'UInt64',
  'UInt64',
  'UInt8',
  'String',
  'String',
];

/**
 * This run's rows of an event table WITHOUT FINAL, grouped by the Kafka record each row was loaded
 * from, handed to `visit` one at a time. FINAL would collapse rows by the table key, and for the
 * tables keyed on the event (events_clean, events_late) that hides two different upstream records
 * of one event as well as the loader's redeliveries; grouping by (topic, partition, offset)
 * collapses only the latter. `topic` is the topic the table is fed from: a row's topic is sent
 * only when it is another (RowBinary, every column cast to a fixed type, row-binary.ts).
 */
export async function scanRunRecords(
  wh: Pick<Warehouse, 'query' | 'queryStream'>,
  role: EventTableRole,
  runId: string,
  topic: string,
  visit: (r: RunRecordRow) => void,
): Promise<RunRecordsScan> {
  const table = TABLES[role];
  const text = TEXT_COLUMN[role];
  const params = { run: runId, topic };
  const body = await wh.queryStream(
    `SELECT toInt64(seq), toUInt32(kafka_partition), toUInt64(kafka_offset), toUInt64(count()), ` +
      `toUInt8(kafka_topic != {topic:String}), if(kafka_topic != {topic:String}, kafka_topic, ''), ` +
      `${text === null ? "''" : `toString(${text})`} ` +
      `FROM ${table} WHERE run_id = {run:String} ` +
      `GROUP BY seq${text === null ? '' : `, ${text}`}, kafka_topic, kafka_partition, kafka_offset FORMAT RowBinary`,
    params,
  );
  const row: RunRecordRow = {
    seq: 0,
    partition: 0,
    offset: 0,
    copies: 0,
    otherTopic: null,
    text: null,
  };
  let raw = 0;
  const parser = new RowBinaryRows(RECORD_TYPES, (v) => {
    row.seq = v[0] as number;
    row.partition = v[1] as number;
    row.offset = v[2] as number;
    row.copies = v[3] as number;
    row.otherTopic = v[4] === 1 ? (v[5] as string) : null;
    row.text = text === null ? null : (v[6] as string);
    raw += row.copies;
    visit(row);
  });
  for await (const chunk of body) parser.push(chunk);
  parser.end();
  const [totals] = await wh.query<{ other_runs: number }>(
    `SELECT count() AS other_runs FROM ${table} WHERE run_id != {run:String}`,
    { run: runId },
  );
  return { table, records: parser.rows, raw, otherRuns: Number(totals?.other_runs ?? 0) };
}

/**
 * This run's records of an event table as objects (scanRunRecords, collected): one entry per
 * source Kafka record.
 */
export async function readRunRecords(
  wh: Pick<Warehouse, 'query' | 'queryStream'>,
  role: EventTableRole,
  runId: string,
  topic: string,
): Promise<RunRecords> {
  const records: RunRecord[] = [];
  const textKey = role === 'dlq' ? 'reason' : 'event_id';
  const scan = await scanRunRecords(wh, role, runId, topic, (r) => {
    const record: RunRecord = {
      seq: r.seq,
      kafka_topic: r.otherTopic ?? topic,
      kafka_partition: r.partition,
      kafka_offset: r.offset,
      copies: r.copies,
    };
    if (r.text !== null) record[textKey] = r.text;
    records.push(record);
  });
  return { table: scan.table, records, raw: scan.raw, otherRuns: scan.otherRuns };
}

/**
 * The RowBinary body scanRunRecords's query answers with for these records of a table fed from
 * `topic`: for test doubles of the warehouse (`queryStream`), so that its column layout is stated
 * only here.
 */
export function runRecordsRowBinary(
  records: readonly RunRecord[],
  role: EventTableRole,
  topic: string,
): Buffer {
  const text = TEXT_COLUMN[role];
  return encodeRowBinary(
    RECORD_TYPES,
    records.map((r) => [
      r.seq,
      r.kafka_partition,
      r.kafka_offset,
      r.copies,
      r.kafka_topic === topic ? 0 : 1,
      r.kafka_topic === topic ? '' : r.kafka_topic,
      text === null ? '' : ((text === 'reason' ? r.reason : r.event_id) ?? ''),
    ]),
  );
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
