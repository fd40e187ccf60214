import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readIcebergLayer } from './iceberg';
import { readCurrentSnapshot, resolveFile } from '../iceberg/metadata';
import {
  FIXTURE_SNAPSHOT_ID,
  truncatedBounds,
  writeIcebergFixture,
  type FixtureRow,
} from '../../test/iceberg-fixture';

const RUN = 'run-ice';
const row = (seq: number, run = RUN): FixtureRow => ({ seq, run_id: run, event_id: `e-${seq}` });

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconciler-iceberg-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('readIcebergLayer', () => {
  it('reads the live rows of the current snapshot, keeps this run, counts other runs', async () => {
    const table = path.join(dir, 'db', 'events_clean');
    await writeIcebergFixture(table, [
      { rows: [row(0), row(1), row(2), row(9, 'other-run'), row(3)] },
      { rows: [row(4), row(5)], status: 0 },
      { rows: [row(6)], status: 2 }, // deleted from the table: not live
    ]);
    const read = await readIcebergLayer({ tablePath: table, runId: RUN });
    if (!read.ok) throw new Error(read.error);
    expect(Array.from(read.contents.seqs)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(Array.from(read.contents.eventIds ?? [])).toEqual([
      'e-0',
      'e-1',
      'e-2',
      'e-3',
      'e-4',
      'e-5',
    ]);
    expect(read.contents.foreign).toBe(1);
    expect(read.contents.notes[0]).toContain(String(FIXTURE_SNAPSHOT_ID));
  });

  it("skips files whose run_id bounds exclude the run, counting their rows as other runs'", async () => {
    const table = path.join(dir, 'pruned');
    await writeIcebergFixture(table, [
      { rows: [row(0), row(1)] },
      { rows: [row(7, 'other-run'), row(8, 'other-run')] },
      // Bounds that claim other runs only: the reader trusts them, as every Iceberg reader does.
      { rows: [row(2)], runIdBounds: ['a-run', 'b-run'] },
      // No bounds written: the file may hold anything, so it is read.
      { rows: [row(3), row(9, 'zz-run')], runIdBounds: null },
    ]);
    const read = await readIcebergLayer({ tablePath: table, runId: RUN });
    if (!read.ok) throw new Error(read.error);
    expect(Array.from(read.contents.seqs)).toEqual([0, 1, 3]);
    expect(read.contents.foreign).toBe(4);
    expect(read.contents.notes[0]).toContain('4 data file(s); 2 read (4 row(s)), 2 skipped');
  });

  it('truncated bounds (16 characters, the upper one incremented) still admit the run', async () => {
    const long = 'profile-1000-20261205T105531Z';
    expect(truncatedBounds([long])).toEqual(['profile-1000-202', 'profile-1000-203']);
    const table = path.join(dir, 'truncated');
    await writeIcebergFixture(table, [
      { rows: [row(0, long), row(1, long)] },
      { rows: [row(2, 'gen-42-1796470444661')] },
    ]);
    const read = await readIcebergLayer({ tablePath: table, runId: long });
    if (!read.ok) throw new Error(read.error);
    expect(Array.from(read.contents.seqs)).toEqual([0, 1]);
    expect(read.contents.notes[0]).toContain('1 skipped');
    const other = await readIcebergLayer({ tablePath: table, runId: 'gen-42-1796470444661' });
    if (!other.ok) throw new Error(other.error);
    expect(Array.from(other.contents.seqs)).toEqual([2]);
  });

  it('a table with no snapshot is readable and empty', async () => {
    const table = path.join(dir, 'empty');
    await writeIcebergFixture(table, null);
    const read = await readIcebergLayer({ tablePath: table, runId: RUN });
    expect(read.ok && read.contents.seqs.length).toBe(0);
  });

  it('without version-hint.text the highest metadata version is current', async () => {
    const table = path.join(dir, 'nohint');
    await writeIcebergFixture(table, [{ rows: [row(1)] }], { hint: false });
    expect(readCurrentSnapshot(table).snapshotId).toBe(String(FIXTURE_SNAPSHOT_ID));
  });

  it('delete files make the layer unreadable (unknown), never silently exact', async () => {
    const table = path.join(dir, 'deletes');
    await writeIcebergFixture(table, [{ rows: [row(1)] }, { rows: [row(1)], content: 1 }]);
    const read = await readIcebergLayer({ tablePath: table, runId: RUN });
    expect(read.ok).toBe(false);
    expect(!read.ok && read.error).toContain('delete file');
  });

  it('a missing table is an error, not an empty layer', async () => {
    const read = await readIcebergLayer({ tablePath: path.join(dir, 'nope'), runId: RUN });
    expect(read.ok).toBe(false);
  });

  it('re-roots absolute paths of a moved warehouse under the table path', () => {
    expect(resolveFile('file:/gone/wh/db/t/data/x.parquet', '/new/wh/db/t')).toBe(
      '/new/wh/db/t/data/x.parquet',
    );
    expect(resolveFile('file:///gone/wh/db/t/metadata/m.avro', '/new/t')).toBe(
      '/new/t/metadata/m.avro',
    );
    expect(() => resolveFile('s3://bucket/x', '/t')).toThrow('only local files');
  });
});
