/** A clean-job test file's run: its topics made before the file's tests, and everything it made removed after them. */

import { cancelJob, createRunTopics, dropRun, freshRun, type CleanRun } from './harness';

/**
 * A fresh run whose topics are created before the file's tests; after them its job is cancelled and its topics, Iceberg
 * table and checkpoints deleted. `restore` runs first, whatever happened (e.g. restarting a process a test killed).
 */
export function useCleanRun(label: string, restore?: () => Promise<void>): CleanRun {
  const run = freshRun(label);
  beforeAll(() => createRunTopics(run));
  afterAll(async () => {
    await restore?.().catch(() => undefined);
    await cancelJob(run.jobName).catch(() => undefined);
    await dropRun(run);
  });
  return run;
}
