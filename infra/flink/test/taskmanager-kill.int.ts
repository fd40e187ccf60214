/** The clean job survives a SIGKILL of the Flink TaskManager mid-run: after recovery events.clean and Iceberg still hold every distinct event exactly once. */

import * as fs from 'fs';
import * as path from 'path';
import {
  readAll,
  compareClean,
  exactSummary,
  produce,
  repoRoot,
  seedValid,
  sleep,
  submitClean,
  summarize,
  waitFor,
  jobState,
} from './harness';
import { useCleanRun } from './clean-run';
import { killTaskManager, stackUp, strikeSoon } from './faults';
import { readCurrentSnapshot } from './iceberg';

// Whatever happened, a TaskManager is left running for everybody else.
const run = useCleanRun('tmkill', stackUp);

function readClean(isolation: 'read_committed' | 'read_uncommitted') {
  return readAll(run.clean, isolation);
}

test('SIGKILL of the TaskManager mid-run: events.clean and Iceberg stay exact', async () => {
  const seeded = seedValid(run.valid, `run-${run.id}`, 7, 0, 9000);
  const jobId = await submitClean(run);

  // Steady load of ~300 sends/s (100 every ~330 ms) for ~40 s; meanwhile the TaskManager is killed at a random moment
  // 8-14 s in, so that the kill usually lands inside an open Kafka transaction and an unfinished checkpoint.
  const slices: (typeof seeded.sends)[] = [];
  for (let i = 0; i < seeded.sends.length; i += 100) slices.push(seeded.sends.slice(i, i + 100));
  const killer = strikeSoon(killTaskManager);
  for (const slice of slices) {
    await produce(slice);
    await sleep(330);
  }
  expect(await killer).toBeGreaterThan(0);
  // The killed TaskManager's working directory (its RocksDB files) is gone: the stack removed it before starting this one.
  const workDirs = fs
    .readdirSync(path.join(repoRoot(), '.run/flink/tmp'))
    .filter((d) => d.startsWith('tm_'));
  expect(workDirs).toHaveLength(1);

  await waitFor(
    `job ${jobId} RUNNING again`,
    () => jobState(jobId),
    (s) => s === 'RUNNING',
    300000,
  );
  const n = seeded.distinct.size;
  const distinctSeqs = async () =>
    new Set((await readClean('read_committed')).map((r) => r.headers['cs-seq']?.toString())).size;
  await waitFor(`${n} distinct events in ${run.clean}`, distinctSeqs, (c) => c >= n, 300000);
  await waitFor(
    `${n} rows in Iceberg`,
    () => readCurrentSnapshot(run.tableDir),
    (s) => (s?.summaryTotalRecords ?? 0) >= n,
    180000,
  );
  await sleep(12000);

  const committed = await readClean('read_committed');
  const uncommitted = await readClean('read_uncommitted');
  const evidence = compareClean(seeded.distinct, committed);
  expect(summarize(evidence)).toEqual(exactSummary(n));
  const snapshot = await readCurrentSnapshot(run.tableDir);
  expect(snapshot?.summaryTotalRecords).toBe(n);
  expect(snapshot?.manifestRecords).toBe(n);
  expect(snapshot?.deleteManifests).toBe(0);

  // Measured, not asserted: records written by transactions that the recovery aborted.
  process.stderr.write(
    `${JSON.stringify({ measurement: 'flink-clean-tm-kill', distinct: n, sends: seeded.sends.length, readCommitted: committed.length, readUncommitted: uncommitted.length, abortedRewritten: uncommitted.length - committed.length, icebergSnapshots: snapshot?.snapshotCount })}\n`,
  );
});
