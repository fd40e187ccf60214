/** A table of the Iceberg warehouse read by pyiceberg (tools/lib/read_iceberg.py; tools/setup installs it under .cache/pyiceberg, with .cache/pyarrow): what a user's own Iceberg reader sees. */

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { childEnv, repoRoot } from './config';

/** One row as pyiceberg returns it: the table's columns by name (longs fit in a double: epoch ms, offsets, seqs). */
export type IcebergRow = Record<string, string | number | null>;

export interface ForeignIcebergRead {
  /** The partition spec as pyiceberg prints it. */
  spec: string;
  /** [field id, name, type, required] of each column. */
  schema: [number, string, string, boolean][];
  /** Data files pyiceberg plans for the run (filter run_id = the run). */
  files: string[];
  /** Data files it plans for a run id that is not in the table: 0 when it prunes by partition. */
  absentRunFiles: number;
  /** The run's rows, and their distinct event ids. */
  rowCount: number;
  distinctEventIds: number;
  /** Every row of the run, when asked for. */
  rows?: IcebergRow[];
}

/** Reads the run `runId` of the table at `tableDir` with pyiceberg (every row with `withRows`); fails naming what is missing. */
export async function readRunWithPyiceberg(
  tableDir: string,
  runId: string,
  withRows = false,
): Promise<ForeignIcebergRead> {
  const cache = path.join(repoRoot(), '.cache');
  for (const lib of ['pyiceberg', 'pyarrow']) {
    if (!fs.existsSync(path.join(cache, lib, lib))) {
      throw new Error(`${lib} is not installed under ${path.join(cache, lib)}: run tools/setup`);
    }
  }
  const script = path.join(repoRoot(), 'tools/lib/read_iceberg.py');
  const { stdout } = await promisify(execFile)(
    'python3',
    [script, path.resolve(repoRoot(), tableDir), runId, ...(withRows ? ['--rows'] : [])],
    {
      env: childEnv({
        PYTHONPATH: [path.join(cache, 'pyiceberg'), path.join(cache, 'pyarrow')].join(':'),
      }),
      maxBuffer: 1024 * 1024 * 1024,
      timeout: 300_000,
    },
  );
  return JSON.parse(stdout) as ForeignIcebergRead;
}
