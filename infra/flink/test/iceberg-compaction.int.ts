/**
 * The clean job's small-file compaction (Iceberg's RewriteDataFiles in the job, IcebergCompaction.java) against the
 * real stack: turned on for a table of many small files (resumed from the checkpoint of the job that wrote them with it
 * off), it replaces them with fewer larger ones, and the table then holds every distinct event exactly once, row for
 * row, while events.clean stays exact.
 */

import { parquetMetadata, parquetRead } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { readFileSync } from 'node:fs';
import { useCleanRun } from './clean-run';
import {
  cancelJob,
  compareClean,
  exactSummary,
  produceInSlices,
  readAll,
  seedValid,
  submitClean,
  summarize,
  waitFor,
} from './harness';
import { listSnapshots, readCurrentSnapshot } from './iceberg';

const run = useCleanRun('compact');

/** The `seq` of every row of the live data files, in file order. */
async function seqsOf(files: string[]): Promise<number[]> {
  const seqs: number[] = [];
  for (const f of files) {
    const bytes = readFileSync(f);
    const file = bytes.buffer.slice(
      bytes.byteOffset,
      bytes.byteOffset + bytes.byteLength,
    ) as ArrayBuffer;
    await parquetRead({
      file,
      metadata: parquetMetadata(file),
      columns: ['seq'],
      compressors,
      onChunk: ({ columnData }) => {
        for (let i = 0; i < columnData.length; i++) seqs.push(Number(columnData[i]));
      },
    });
  }
  return seqs;
}

const MB = 1024 * 1024;

test('compacts a table already bigger than one run may rewrite, and every distinct event stays in it exactly once', async () => {
  // Phase 1, compaction off (its operators are in the graph all the same): Iceberg at every 1 s checkpoint, 16 slices a
  // second apart, so a small data file per commit (about 0.1 MB), until the table is bigger than the 1 MB that one
  // compaction may rewrite. Iceberg's planner skips a file group bigger than that limit, and the small files of one
  // partition (here one run) made one group of them all until groups were bounded alike: nothing was compacted then.
  const a = seedValid(run.valid, `run-${run.id}`, 3, 0, 28800);
  const commitAtEveryCheckpoint = ['--iceberg-commit-interval-ms', '0'];
  await submitClean(run, commitAtEveryCheckpoint);
  await produceInSlices(a.sends, 16);
  await waitFor(
    `${a.distinct.size} rows in Iceberg ${run.icebergTable}`,
    () => readCurrentSnapshot(run.tableDir),
    (s) => (s?.summaryTotalRecords ?? 0) >= a.distinct.size,
    180000,
  );
  await cancelJob(run.jobName);
  const before = listSnapshots(run.tableDir);
  expect(before.filter((s) => s.operation === 'append').length).toBeGreaterThanOrEqual(10);
  expect(before.at(-1)?.totalFilesSize).toBeGreaterThan(1 * MB);

  // Phase 2, resumed with compaction after every 50 commits, the monitor reading the table every 2 s, files of 1 MB,
  // at most 1 MB rewritten per run. The count carries over from phase 1 (the trigger's state counted its commits), and
  // the rest, over 20, come between the compaction's start and its first commit: more than Iceberg's default of 20
  // metadata versions, so the committer's refresh from the version it opened needs the versions the job keeps.
  const b = seedValid(run.valid, `run-${run.id}`, 4, 28800, 13500);
  await submitClean(run, [
    ...commitAtEveryCheckpoint,
    '--iceberg-compaction-commits',
    '50',
    '--iceberg-compaction-poll-s',
    '2',
    '--iceberg-compaction-target-mb',
    '1',
    '--iceberg-compaction-max-mb',
    '1',
  ]);
  await produceInSlices(b.sends, 45);
  const all = new Map([...a.distinct, ...b.distinct]);
  await waitFor(
    `${all.size} rows in Iceberg ${run.icebergTable}`,
    () => readCurrentSnapshot(run.tableDir),
    (s) => (s?.summaryTotalRecords ?? 0) >= all.size,
    180000,
  );
  await waitFor(
    `a compaction (replace snapshot) of ${run.icebergTable}`,
    async () => listSnapshots(run.tableDir).filter((s) => s.operation === 'replace').length,
    (n) => n >= 1,
    180000,
  );

  const snapshot = await readCurrentSnapshot(run.tableDir);
  expect(snapshot?.deleteManifests).toBe(0);
  expect(snapshot?.summaryTotalRecords).toBe(all.size);
  expect(snapshot?.manifestRecords).toBe(all.size);
  const snapshots = listSnapshots(run.tableDir);
  const firstReplace = snapshots.findIndex((s) => s.operation === 'replace');
  expect(firstReplace - before.length).toBeGreaterThan(20);
  // Each compaction replaced more files than it wrote.
  const replaces = snapshots.filter((s) => s.operation === 'replace');
  for (const r of replaces) expect(r.addedDataFiles).toBeLessThan(r.deletedDataFiles);
  const seqs = (await seqsOf(snapshot?.dataFilePaths ?? [])).sort((x, y) => x - y);
  expect(seqs).toEqual([...all.keys()].sort((x, y) => x - y));

  const evidence = compareClean(all, await readAll(run.clean, 'read_committed'));
  expect(summarize(evidence)).toEqual(exactSummary(all.size));
});
