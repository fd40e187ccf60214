/** Where a run's ledger and manifest live: <results>/runs/<run-id>/{ledger.arrows,manifest.json}. */

import * as path from 'path';

/**
 * The ledger is an Arrow IPC *stream* (so that the batches written before a crash stay readable),
 * and `.arrows` is the stream format's conventional extension: tools that see `.arrow` expect the
 * IPC *file* format (pyarrow's `ipc.open_file` says "Not an Arrow file"). Older runs' manifests name
 * `ledger.arrow`; readers follow the manifest's `ledger_file`.
 */
export const LEDGER_FILE = 'ledger.arrows';
export const MANIFEST_FILE = 'manifest.json';

/** Run ids become directory names, so they are restricted to a safe alphabet. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface RunPaths {
  dir: string;
  ledger: string;
  manifest: string;
}

/** Paths of a run under a results directory (default layout `results/runs/<run-id>/`). */
export function runPaths(resultsDir: string, runId: string): RunPaths {
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new RangeError(
      `run id ${JSON.stringify(runId)} is not a safe directory name (expected ${RUN_ID_PATTERN.source})`,
    );
  }
  const dir = path.join(resultsDir, 'runs', runId);
  return { dir, ledger: path.join(dir, LEDGER_FILE), manifest: path.join(dir, MANIFEST_FILE) };
}
