/**
 * The clean job against the real stack: every distinct event exactly once in events.clean and in Iceberg, byte for
 * byte, also across a cancel and a resume from the retained checkpoint. The first job compacts its RocksDB dedup state
 * with `level` (the default before universal), the resumed one with the default: a deployment's existing checkpoint
 * must restore into the new compaction style with every dedup key.
 */

import { Type, type Schema } from 'avsc';
import { CANONICAL_VERSION, SINGLE_OBJECT_HEADER_BYTES, schemaOf } from '@clickstream/contracts';
import type { InRecord, OutRecord } from '@clickstream/kafka-tx';
import { readRunWithPyiceberg, type IcebergRow } from '@clickstream/test-support';
import { useCleanRun } from './clean-run';
import {
  readAll,
  cancelJob,
  compareClean,
  exactSummary,
  produce,
  produceInSlices,
  seedValid,
  sleep,
  submitClean,
  summarize,
  waitFor,
} from './harness';
import { listSnapshots, readCurrentSnapshot } from './iceberg';

const run = useCleanRun('exact');

function readClean(isolation: 'read_committed' | 'read_uncommitted' = 'read_committed') {
  return readAll(run.clean, isolation);
}

/** Waits until events.clean holds at least `n` distinct seqs and the Iceberg snapshot at least `n` rows. */
async function waitForOutputs(n: number): Promise<void> {
  const distinctSeqs = async () =>
    new Set((await readClean()).map((r) => r.headers['cs-seq']?.toString())).size;
  await waitFor(`${n} distinct events in ${run.clean}`, distinctSeqs, (c) => c >= n, 180000);
  await waitFor(
    `${n} rows in Iceberg ${run.icebergTable}`,
    () => readCurrentSnapshot(run.tableDir),
    (s) => (s?.summaryTotalRecords ?? 0) >= n,
    120000,
  );
}

test('dedups into events.clean and Iceberg exactly once, and resumes from the retained checkpoint (level to universal compaction)', async () => {
  // Phase 1: 3000 distinct events, ~20% sent 2-4 times.
  const a = seedValid(run.valid, `run-${run.id}`, 1, 0, 3000);
  expect(a.sends.length).toBeGreaterThan(a.distinct.size);
  const firstHalf = Math.floor(a.sends.length / 2);
  await produce(a.sends.slice(0, firstHalf));
  await submitClean(run, ['--rocksdb-compaction', 'level']);
  // The rest over several 1 s checkpoints: each flushes an SST file, and level compaction moves them to level 1
  // after four, so the checkpoint restored below holds files beyond level 0.
  await produceInSlices(a.sends.slice(firstHalf), 8);
  await waitForOutputs(a.distinct.size);

  // Phase 2: cancel (checkpoint retained), then more events plus byte-identical replays of phase-1 events, which the
  // restored dedup state must drop. A fresh start from `earliest` would instead re-emit everything. The resumed job
  // opens the level-compacted RocksDB files with universal compaction (the default).
  await cancelJob(run.jobName);
  const b = seedValid(run.valid, `run-${run.id}`, 2, 3000, 3000);
  const replays = [...a.distinct.values()].filter((_, i) => i % 10 === 0);
  const half = Math.floor(b.sends.length / 2);
  await produce([...b.sends.slice(0, half), ...replays]);
  const resumed = await submitClean(run);
  // The rest in slices a second apart while the job runs, so that data reaches several of its 1 s checkpoints.
  await produceInSlices(b.sends.slice(half), 8);
  const all = new Map([...a.distinct, ...b.distinct]);
  await waitForOutputs(all.size);
  // Two more checkpoints: a wrongly re-emitted copy would be committed by then.
  await sleep(12000);

  const evidence = compareClean(all, await readClean());
  expect(summarize(evidence)).toEqual(exactSummary(all.size));

  const snapshot = await readCurrentSnapshot(run.tableDir);
  expect(snapshot).not.toBeNull();
  expect(snapshot?.formatVersion).toBe(2);
  expect(snapshot?.deleteManifests).toBe(0);
  expect(snapshot?.summaryTotalRecords).toBe(all.size);
  expect(snapshot?.manifestRecords).toBe(all.size);
  expect(snapshot?.parquetCodec).toBe('snappy');
  // Partitioned by run_id: every data file under the run's partition directory.
  expect(snapshot?.dataFilePaths.length).toBeGreaterThan(0);
  const outside = snapshot?.dataFilePaths.filter((p) => !p.includes(`/data/run_id=run-${run.id}/`));
  expect(outside).toEqual([]);

  // A reader that is not ours (pyiceberg, from the table's directory, filtered on run_id) finds the partition spec,
  // plans exactly the run's files (and none for a run that is not there), and reads each distinct event once, every
  // column equal to the event sent and to the events.valid copy the job kept.
  const foreign = await readRunWithPyiceberg(run.tableDir, `run-${run.id}`, true);
  expect(foreign.spec).toContain('1000: run_id: identity(3)');
  expect(foreign.schema.map(([id, name]) => `${id}:${name}`)).toEqual(
    ICEBERG_COLUMNS.map((c, i) => `${i + 1}:${c}`),
  );
  expect(foreign.files.length).toBe(snapshot?.dataFiles);
  expect(foreign.absentRunFiles).toBe(0);
  expect(foreign.rowCount).toBe(all.size);
  expect(foreign.distinctEventIds).toBe(all.size);
  expect(
    rowsDifferingFrom(all, foreign.rows ?? [], await readAll(run.valid, 'read_committed')),
  ).toEqual([]);

  // Iceberg commits on its own cadence (IcebergCadence, 5 s), not at each of the job's 1 s checkpoints: the resumed
  // job's snapshots with data are seconds apart (at every checkpoint they would be 1-1.5 s apart). Its first release
  // comes at its first checkpoint, whatever the clock, and the next at the first checkpoint of the next 5 s interval,
  // which may be a second later; so the gaps are measured from the second snapshot on.
  const withData = listSnapshots(run.tableDir).filter(
    (s) => s.flinkJobId === resumed && s.addedRecords > 0,
  );
  expect(withData.length).toBeGreaterThanOrEqual(3);
  const times = withData.slice(1).map((s) => s.timestampMs);
  const gaps = times.slice(1).map((t, i) => t - (times[i] ?? t));
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(2000);
});

/** The events' Avro schema, the version the harness encodes with. */
const EVENT = Type.forSchema(schemaOf(CANONICAL_VERSION) as Schema);

/** The clean table's columns in field-id order (docs/FLINK.md, "Schema"): the event's, then its events.valid record's. */
const ICEBERG_COLUMNS = [
  'event_id',
  'seq',
  'run_id',
  'event_type',
  'event_time',
  'session_id',
  'user_id',
  'page',
  'product_id',
  'quantity',
  'amount_cents',
  'currency',
  'device',
  'ingest_time',
  'kafka_partition',
  'kafka_offset',
  'kafka_timestamp',
] as const;

/**
 * The rows (at most 5, described) whose event columns differ from the event sent under their seq, whose seq was
 * not sent or is read twice, or whose kafka_partition/kafka_offset do not name an events.valid record holding that
 * event's bytes with kafka_timestamp as its timestamp.
 */
function rowsDifferingFrom(
  sent: Map<number, OutRecord>,
  rows: IcebergRow[],
  valid: InRecord[],
): string[] {
  const byPosition = new Map(valid.map((r) => [`${r.partition}:${r.offset}`, r]));
  const seen = new Set<number>();
  const wrong: string[] = [];
  for (const row of rows) {
    const seq = Number(row['seq']);
    const record = sent.get(seq);
    if (record === undefined || seen.has(seq)) {
      wrong.push(`seq ${seq}: ${record === undefined ? 'not sent' : 'read twice'}`);
      continue;
    }
    seen.add(seq);
    // The Avro record as sent (the harness's events are not all valid business events: the job does not check).
    const event = EVENT.fromBuffer(
      (record.value as Buffer).subarray(SINGLE_OBJECT_HEADER_BYTES),
    ) as Record<string, unknown>;
    const columns = ICEBERG_COLUMNS.slice(0, 14).filter((c) => row[c] !== (event[c] ?? null));
    const source = byPosition.get(`${row['kafka_partition']}:${row['kafka_offset']}`);
    if (source === undefined || !source.value?.equals(record.value as Buffer))
      columns.push('kafka_offset');
    else if (source.timestamp !== row['kafka_timestamp']) columns.push('kafka_timestamp');
    if (columns.length > 0) wrong.push(`seq ${seq}: ${columns.join(', ')}`);
  }
  return wrong.slice(0, 5);
}
