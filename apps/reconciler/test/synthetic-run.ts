/** Builds a small synthetic but real run for the integration tests: a ledger on disk, matching records in unique topics and a unique ClickHouse database. */

import pino from 'pino';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { encodeEvent, HEADERS, type ClickEvent, type LedgerRow } from '@clickstream/contracts';
import {
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  readTopic,
  type InRecord,
  type KafkaClientOptions,
  type OutRecord,
} from '@clickstream/kafka-tx';
import { writeLedger, writeManifest } from '@clickstream/ledger';
import {
  createWarehouse,
  DDL_DIR,
  toDlqRow,
  toEventRow,
  type Warehouse,
} from '@clickstream/warehouse';
import { duplicateSend, manifestFor, poisonSend, validSend } from './ledger-rows';
import { localBootstrap } from '@clickstream/test-support';

export const BOOTSTRAP = localBootstrap();
export const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123';

const noop = (): void => undefined;
export const quietLogger = pino({ level: 'silent' });

export interface SyntheticRun {
  id: string;
  runId: string;
  runDir: string;
  rows: LedgerRow[];
  topics: { raw: string; valid: string; dlq: string; clean: string };
  database: string;
  kafka: KafkaClientOptions;
  warehouse: Warehouse;
  produce(records: OutRecord[]): Promise<void>;
  cleanup(): Promise<void>;
}

/**
 * 40 valid sends (seq 0-39), 3 injected duplicates (40-42 of 1-3), 4 poison (43-46), one valid send
 * that failed indefinitely but was written (47), one never sent (48).
 */
export function syntheticLedger(runId: string): LedgerRow[] {
  const rows: LedgerRow[] = [];
  for (let s = 0; s < 40; s++) rows.push(validSend(s));
  rows.push(duplicateSend(40, 1), duplicateSend(41, 2), duplicateSend(42, 3));
  rows.push(
    poisonSend(43, 'bad_magic'),
    poisonSend(44, 'truncated'),
    poisonSend(45, 'unknown_fingerprint'),
    poisonSend(46, 'empty'),
  );
  rows.push(
    validSend(47, { delivery: 'failed', delivery_error: 'timed out' }),
    validSend(48, { delivery: 'not_sent' }),
  );
  return rows.map((r) => ({
    ...r,
    run_id: runId,
    event_id:
      r.event_id === null
        ? null
        : `00000000-0000-4000-8000-${r.event_id.slice(2).padStart(12, '0')}`,
  }));
}

export function eventOf(row: LedgerRow): ClickEvent {
  return {
    event_id: row.event_id as string,
    seq: row.seq,
    run_id: row.run_id,
    event_type: 'page_view',
    event_time: row.event_time as number,
    session_id: row.session_id as string,
    user_id: null,
    page: '/',
    product_id: null,
    quantity: null,
    amount_cents: null,
    currency: null,
    device: null,
    ingest_time: row.send_time,
  };
}

export function headersOf(
  row: LedgerRow,
  extra: Record<string, string> = {},
): Record<string, string> {
  return { [HEADERS.seq]: String(row.seq), [HEADERS.runId]: row.run_id, ...extra };
}

export function recordOf(
  topic: string,
  row: LedgerRow,
  extra: Record<string, string> = {},
): OutRecord {
  const value =
    row.expected_fate === 'valid' ? encodeEvent(eventOf(row)) : Buffer.from([0xde, 0xad]);
  return { topic, key: row.key, value, headers: headersOf(row, extra) };
}

export async function createSyntheticRun(): Promise<SyntheticRun> {
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const runId = `rec-it-${id}`;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconciler-it-'));
  const rows = syntheticLedger(runId);
  await writeLedger(path.join(runDir, 'ledger.arrow'), rows);
  writeManifest(path.join(runDir, 'manifest.json'), manifestFor(rows));

  const topics = {
    raw: `rec-it-raw-${id}`,
    valid: `rec-it-valid-${id}`,
    dlq: `rec-it-dlq-${id}`,
    clean: `rec-it-clean-${id}`,
  };
  const kafka: KafkaClientOptions = {
    bootstrap: BOOTSTRAP,
    clientId: `reconciler-it-${id}`,
    logger: quietLogger,
  };
  await createTopics(
    kafka,
    Object.values(topics).map((topic) => ({ topic, partitions: 3 })),
  );
  const producer = await createIdempotentProducer(kafka);
  const produce = async (records: OutRecord[]): Promise<void> => {
    const reports = await producer.send(records);
    const failed = reports.filter((r) => !r.ok);
    if (failed.length > 0) throw new Error(`produce failed: ${failed[0]?.error}`);
  };

  const database = `rec_it_${id}`;
  const warehouse = createWarehouse({ url: CLICKHOUSE_URL, database, logger: quietLogger });
  await warehouse.applyDdl(DDL_DIR);

  const written = rows.filter((r) => r.delivery === 'acked' || r.delivery === 'failed');
  const valid = written.filter((r) => r.expected_fate === 'valid');
  const poison = written.filter((r) => r.expected_fate === 'poison');
  // Flink keeps the first copy of each event: the original sends, never the injected duplicates.
  const clean = valid.filter((r) => r.fault !== 'duplicate');
  // Another run's records in every topic and table (like the probe's): ignored, counted as information.
  const other = {
    ...validSend(7),
    run_id: `other-${id}`,
    event_id: '00000000-0000-4000-8000-0000000000ff',
  };

  await produce([...written.map((r) => recordOf(topics.raw, r)), recordOf(topics.raw, other)]);
  // valid and dlq as the gatekeeper writes them from the raw records read back: the raw record's
  // partition, its broker timestamp as ingest_time, the poison's bytes and source unchanged.
  const rawRecords = await readTopic({ ...kafka, topic: topics.raw, isolation: 'read_committed' });
  const rawOf = new Map(
    rawRecords
      .filter((r) => r.headers[HEADERS.runId]?.toString() === runId)
      .map((r) => [Number(r.headers[HEADERS.seq]?.toString()), r]),
  );
  const placed = (row: LedgerRow): InRecord => {
    const r = rawOf.get(row.seq);
    if (r === undefined) throw new Error(`seq ${row.seq} not read back from ${topics.raw}`);
    return r;
  };
  await produce([
    ...valid.map((row) => {
      const r = placed(row);
      // A real gatekeeper passes only events whose event_time is near the ingest time.
      return {
        ...recordOf(topics.valid, row),
        partition: r.partition,
        timestamp: r.timestamp,
        value: encodeEvent({
          ...eventOf(row),
          event_time: r.timestamp - 5,
          ingest_time: r.timestamp,
        }),
      };
    }),
    ...poison.map((row) => {
      const r = placed(row);
      return {
        ...recordOf(topics.dlq, row, {
          [HEADERS.reason]: row.expected_reason as string,
          [HEADERS.sourceTopic]: r.topic,
          [HEADERS.sourcePartition]: String(r.partition),
          [HEADERS.sourceOffset]: String(r.offset),
        }),
        partition: r.partition,
        value: r.value,
      };
    }),
    ...clean.map((r) => recordOf(topics.clean, r)),
    ...[topics.valid, topics.dlq, topics.clean].map((t) => recordOf(t, other)),
  ]);
  // Each table's rows name the topic the loader feeds it from (the reconciler checks kafka_topic).
  const meta = (topic: string, offset: number) => ({
    topic,
    partition: 0,
    offset,
    timestamp: 1_700_000_000_000,
  });
  await warehouse.insertRows(
    'events_valid',
    [...valid, other].map((r, i) => toEventRow(eventOf(r), meta(topics.valid, i), 1)),
  );
  await warehouse.insertRows(
    'events_clean',
    [...clean, other].map((r, i) => toEventRow(eventOf(r), meta(topics.clean, i), 1)),
  );
  await warehouse.insertRows(
    'events_dlq',
    [...poison, other].map((r, i) => {
      const rec = recordOf('x', r, { [HEADERS.reason]: r.expected_reason ?? 'invalid_field' });
      const headers = Object.fromEntries(
        Object.entries(rec.headers ?? {}).map(([k, v]) => [k, Buffer.from(v)]),
      );
      return toDlqRow({ headers, value: rec.value }, meta(topics.dlq, i), 1);
    }),
  );

  return {
    id,
    runId,
    runDir,
    rows,
    topics,
    database,
    kafka,
    warehouse,
    produce,
    async cleanup() {
      await producer.close();
      await deleteTopics(kafka, Object.values(topics)).catch(noop);
      await warehouse.command(`DROP DATABASE IF EXISTS ${database}`).catch(noop);
      await warehouse.close();
      fs.rmSync(runDir, { recursive: true, force: true });
    },
  };
}
