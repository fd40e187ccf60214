/**
 * The clean job's small-file compaction (Iceberg's RewriteDataFiles in the job, IcebergCompaction.java) against the
 * real stack: after a few commits it replaces the table's small files with fewer larger ones, and the table then holds
 * every distinct event exactly once, row for row, while events.clean stays exact.
 */

import { parquetMetadata, parquetRead } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { readFileSync } from 'node:fs';
import { useCleanRun } from './clean-run';
import {
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

test('compacts the small files into fewer, and every distinct event stays in the table exactly once', async () => {
  const a = seedValid(run.valid, `run-${run.id}`, 3, 0, 12000);
  // Iceberg at every 1 s checkpoint, a compaction after every 6 commits, the monitor reading the table every 2 s, and
  // at most 1 MB rewritten per run: less than the table's small files (about 2 MB), as on a long-lived table whose
  // backlog is worked off over several runs (a run whose one file group exceeded it used to plan nothing).
  await submitClean(run, [
    '--iceberg-commit-interval-ms',
    '0',
    '--iceberg-compaction-commits',
    '6',
    '--iceberg-compaction-poll-s',
    '2',
    '--iceberg-compaction-target-mb',
    '1',
    '--iceberg-compaction-max-mb',
    '1',
  ]);
  // In 10 slices a second apart: a small data file per subtask at most checkpoints.
  await produceInSlices(a.sends, 10);
  await waitFor(
    `${a.distinct.size} rows in Iceberg ${run.icebergTable}`,
    () => readCurrentSnapshot(run.tableDir),
    (s) => (s?.summaryTotalRecords ?? 0) >= a.distinct.size,
    180000,
  );
  const appended = listSnapshots(run.tableDir).filter((s) => s.operation === 'append').length;
  expect(appended).toBeGreaterThanOrEqual(6);
  await waitFor(
    `a compaction (replace snapshot) of ${run.icebergTable}`,
    async () => listSnapshots(run.tableDir).filter((s) => s.operation === 'replace').length,
    (n) => n >= 1,
    180000,
  );

  const snapshot = await readCurrentSnapshot(run.tableDir);
  expect(snapshot?.deleteManifests).toBe(0);
  expect(snapshot?.summaryTotalRecords).toBe(a.distinct.size);
  expect(snapshot?.manifestRecords).toBe(a.distinct.size);
  // Each compaction replaced more files than it wrote.
  const replaces = listSnapshots(run.tableDir).filter((s) => s.operation === 'replace');
  for (const r of replaces) expect(r.addedDataFiles).toBeLessThan(r.deletedDataFiles);
  const seqs = (await seqsOf(snapshot?.dataFilePaths ?? [])).sort((x, y) => x - y);
  expect(seqs).toEqual([...a.distinct.keys()].sort((x, y) => x - y));

  const evidence = compareClean(a.distinct, await readAll(run.clean, 'read_committed'));
  expect(summarize(evidence)).toEqual(exactSummary(a.distinct.size));
});
