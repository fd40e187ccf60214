/** Unique topics and job of one windows-job integration test, its submission through submit.sh, and the three checks. */

import { execFile } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { createTopics, deleteTopics } from '@clickstream/kafka-tx';
import { PARTITIONS, clusterOptions, readAll, repoRoot, retry, waitFor } from './harness';
import {
  brief,
  compareLate,
  compareSessions,
  compareWindows,
  expectedAggregates,
  isExact,
  type AggregateEvidence,
  type LateEvidence,
} from './windows-oracle';
import { LATENESS_MS, type Scenario } from './windows-scenario';

const run = promisify(execFile);

export interface WindowsRun {
  id: string;
  jobName: string;
  clean: string;
  windows: string;
  sessions: string;
  late: string;
  checkpointDir: string;
}

export function freshWindowsRun(label: string): WindowsRun {
  const id = `${label}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  return {
    id,
    jobName: `windows-test-${id}`,
    clean: `flink-test.${id}.clean`,
    windows: `flink-test.${id}.windows`,
    sessions: `flink-test.${id}.sessions`,
    late: `flink-test.${id}.late`,
    checkpointDir: path.join(repoRoot(), '.run/flink/checkpoints', `windows-test-${id}`),
  };
}

const topicsOf = (r: WindowsRun): string[] => [r.clean, r.windows, r.sessions, r.late];

export async function createWindowsTopics(r: WindowsRun): Promise<void> {
  await retry('creating topics', () =>
    createTopics(
      clusterOptions('flink-test-admin'),
      topicsOf(r).map((topic) => ({ topic, partitions: PARTITIONS })),
    ),
  );
}

export async function dropWindowsRun(r: WindowsRun): Promise<void> {
  await retry('deleting topics', () =>
    deleteTopics(clusterOptions('flink-test-admin'), topicsOf(r)),
  );
  fs.rmSync(r.checkpointDir, { recursive: true, force: true });
}

/**
 * Submits (or resumes from the newest retained checkpoint) the windows job of this run; resolves to the job id.
 * `extraArgs` (program args such as `--state-backend hashmap`) come last and override the ones here.
 */
export async function submitWindows(r: WindowsRun, extraArgs: string[] = []): Promise<string> {
  const args = [
    path.join(repoRoot(), 'infra/flink/submit.sh'),
    'windows',
    '--job-name',
    r.jobName,
    '--clean-topic',
    r.clean,
    '--windows-topic',
    r.windows,
    '--sessions-topic',
    r.sessions,
    '--late-topic',
    r.late,
    '--lateness-ms',
    // A mutation check: FLINK_TEST_JOB_LATENESS_MS=4999 gives the job another L than the oracle and must fail the test.
    process.env.FLINK_TEST_JOB_LATENESS_MS ?? String(LATENESS_MS),
    // Short on purpose: partitions go idle quickly, so the tests read on-time events far behind the watermark.
    '--idleness-ms',
    '5000',
    '--parallelism',
    process.env.FLINK_TEST_PARALLELISM ?? '1',
    '--starting-offsets',
    'earliest',
    ...extraArgs,
  ];
  const { stdout } = await run('bash', args, { timeout: 300000 });
  const jobId = stdout.trim().split('\n').pop() ?? '';
  if (!/^[0-9a-f]{32}$/.test(jobId)) throw new Error(`submit.sh printed no job id: ${stdout}`);
  return jobId;
}

export interface WindowsEvidence {
  late: LateEvidence;
  windows: AggregateEvidence;
  sessions: AggregateEvidence & { retracted: number };
}

/** Reads the three output topics read_committed and compares them with the oracle over everything sent so far. */
export async function check(
  r: WindowsRun,
  s: Scenario,
  probeRun: string,
): Promise<WindowsEvidence> {
  const expected = expectedAggregates(s.sent, LATENESS_MS);
  const [late, windows, sessions] = await Promise.all([
    readAll(r.late, 'read_committed'),
    readAll(r.windows, 'read_committed'),
    readAll(r.sessions, 'read_committed'),
  ]);
  return {
    late: compareLate(expected.late, s.records, late, new Set([s.runId, probeRun])),
    windows: compareWindows(expected.windows, windows, s.runId),
    sessions: compareSessions(expected.sessions, sessions, s.runId),
  };
}

export function allExact(e: WindowsEvidence): boolean {
  return isExact(e.late) && isExact(e.windows) && isExact(e.sessions);
}

/** Reads the run's evidence every 3 s until it is exact or `timeoutMs` has passed; resolves to the last read, exact or not. */
export async function settle(
  r: WindowsRun,
  s: Scenario,
  probeRun: string,
  what: string,
  timeoutMs: number,
): Promise<WindowsEvidence> {
  try {
    return await waitFor(what, () => check(r, s, probeRun), allExact, timeoutMs, 3000);
  } catch {
    return check(r, s, probeRun);
  }
}

/** The run's evidence once exact (within 180 s); otherwise throws with what was not. */
export async function untilExact(
  r: WindowsRun,
  s: Scenario,
  probeRun: string,
  what: string,
): Promise<WindowsEvidence> {
  const last = await settle(r, s, probeRun, what, 180000);
  if (!allExact(last))
    throw new Error(`${what}: not exact: ${JSON.stringify(summary(last), null, 1)}`);
  return last;
}

export function summary(e: WindowsEvidence): object {
  return { late: brief(e.late), windows: brief(e.windows), sessions: brief(e.sessions) };
}
