/** The clean table read by pyiceberg (installed by tools/setup under .cache/pyiceberg, with .cache/pyarrow): what a user's own Iceberg reader sees. */

import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { repoRoot } from '@clickstream/test-support';

/** One row as pyiceberg returns it: the table's columns by name (longs fit in a double: epoch ms, offsets, seqs). */
export type IcebergRow = Record<string, string | number | null>;

export interface ForeignRead {
  /** The partition spec as pyiceberg prints it. */
  spec: string;
  /** [field id, name, type, required] of each column. */
  schema: [number, string, string, boolean][];
  /** Data files pyiceberg plans for the run (filter run_id = the run). */
  files: string[];
  /** Data files it plans for a run id that is not in the table: 0 when it prunes by partition. */
  absentRunFiles: number;
  rows: IcebergRow[];
}

/** Reads the rows of `runId` from the table at `tableDir` with pyiceberg; fails naming what is missing. */
export async function readRunWithPyiceberg(tableDir: string, runId: string): Promise<ForeignRead> {
  const cache = path.join(repoRoot(), '.cache');
  for (const lib of ['pyiceberg', 'pyarrow']) {
    if (!fs.existsSync(path.join(cache, lib, lib))) {
      throw new Error(`${lib} is not installed under ${path.join(cache, lib)}: run tools/setup`);
    }
  }
  const { stdout } = await promisify(execFile)(
    'python3',
    [path.join(__dirname, 'read_iceberg.py'), path.resolve(tableDir), runId],
    {
      env: {
        ...process.env,
        PYTHONPATH: [path.join(cache, 'pyiceberg'), path.join(cache, 'pyarrow')].join(':'),
      },
      maxBuffer: 512 * 1024 * 1024,
      timeout: 120_000,
    },
  );
  return JSON.parse(stdout) as ForeignRead;
}
