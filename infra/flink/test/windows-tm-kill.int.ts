/**
 * The windows job survives a SIGKILL of the Flink TaskManager mid-run: after recovery from the last checkpoint,
 * agg.windows, agg.sessions and events.late (read_committed) match the oracle exactly, with no version committed twice.
 */

import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { cancelJob, jobState, produce, repoRoot, sleep, waitFor } from './harness';
import {
  allExact,
  check,
  createWindowsTopics,
  dropWindowsRun,
  freshWindowsRun,
  submitWindows,
  summary,
} from './windows-run';
import { bridges, generate, maxTime, newScenario, probes } from './windows-scenario';

const exec = promisify(execFile);
const run = freshWindowsRun('wintm');
const probeRun = `probe-${run.id}`;
const PID_FILE = path.join(repoRoot(), '.run/pids/flink-taskmanager.pid');

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stackUp(): Promise<void> {
  await exec('bash', [path.join(repoRoot(), 'infra/local/stack.sh'), 'up'], { timeout: 300000 });
}

beforeAll(async () => {
  await createWindowsTopics(run);
});

afterAll(async () => {
  // Whatever happened, leave a TaskManager running for everybody else.
  await stackUp().catch(() => undefined);
  await cancelJob(run.jobName).catch(() => undefined);
  await dropWindowsRun(run);
});

test('SIGKILL of the TaskManager mid-run: windows, sessions and late stay exact', async () => {
  const s = newScenario(run.clean, `run-${run.id}`, 4242);
  const base = Math.floor(Date.now() / 10_000) * 10_000 - 3_600_000;
  const jobId = await submitWindows(run);
  const { records, plans } = generate(s, base, 150, 'k');

  // ~40 records every 300 ms; the TaskManager is killed 8-14 s in, usually inside an open transaction.
  let killedPid = 0;
  const killer = (async () => {
    await sleep(8000 + Math.floor(Math.random() * 6000));
    killedPid = Number(fs.readFileSync(PID_FILE, 'utf8').trim());
    process.kill(killedPid, 'SIGKILL');
    await waitFor(
      'the TaskManager to die',
      async () => isAlive(killedPid),
      (a) => !a,
      30000,
      200,
    );
    await sleep(3000);
    await stackUp();
  })();
  for (let i = 0; i < records.length; i += 40) {
    await produce(records.slice(i, i + 40));
    await sleep(300);
  }
  await killer;
  expect(killedPid).toBeGreaterThan(0);
  await waitFor(
    `job ${jobId} RUNNING again`,
    () => jobState(jobId),
    (st) => st === 'RUNNING',
    300000,
  );

  await produce(probes(s, probeRun, maxTime(s) + 60_000));
  await produce(bridges(s, plans));
  await produce(probes(s, probeRun, maxTime(s) + 60_000));
  let last = await check(run, s, probeRun);
  try {
    last = await waitFor(
      'exact after the kill',
      () => check(run, s, probeRun),
      allExact,
      240000,
      3000,
    );
  } catch {
    last = await check(run, s, probeRun);
  }
  expect(summary(last)).toEqual(
    summary({
      ...last,
      late: { ...last.late, missing: [], duplicated: [], unexpected: [], altered: [] },
      windows: {
        ...last.windows,
        missing: [],
        unexpected: [],
        differing: [],
        notFinal: [],
        duplicateVersions: [],
        undecodable: 0,
      },
      sessions: {
        ...last.sessions,
        missing: [],
        unexpected: [],
        differing: [],
        notFinal: [],
        duplicateVersions: [],
        undecodable: 0,
      },
    }),
  );
  expect(last.sessions.retracted).toBeGreaterThan(0);
  process.stderr.write(
    `${JSON.stringify({ measurement: 'flink-windows-tm-kill', events: s.sent.length, late: last.late.observed, windows: last.windows.observed, sessions: last.sessions.observed, retracted: last.sessions.retracted })}\n`,
  );
});
