/**
 * The jest-only part of the windows runs (apart from windows-run.ts, which the benchmark compiles without jest's
 * globals).
 */
import { cancelJob } from './harness';
import {
  createWindowsTopics,
  dropWindowsRun,
  freshWindowsRun,
  type WindowsRun,
} from './windows-run';

/**
 * A fresh run for one test file: its topics created before the file's tests, its job cancelled and its topics and
 * checkpoints dropped after them.
 */
export function windowsRunForFile(label: string): WindowsRun {
  const r = freshWindowsRun(label);
  beforeAll(async () => {
    await createWindowsTopics(r);
  });
  afterAll(async () => {
    await cancelJob(r.jobName).catch(() => undefined);
    await dropWindowsRun(r);
  });
  return r;
}
