/**
 * The windows job survives a SIGKILL of a Kafka broker mid-run (its sinks' transactions and its source's partitions
 * move to other leaders): agg.windows, agg.sessions and events.late (read_committed) match the oracle exactly, with no
 * version committed twice.
 */

import { execFile } from 'child_process';
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
const run = freshWindowsRun('winbk');
const probeRun = `probe-${run.id}`;
async function stack(...args: string[]): Promise<void> {
  await exec('bash', [path.join(repoRoot(), 'infra/local/stack.sh'), ...args], { timeout: 300000 });
}

beforeAll(async () => {
  await createWindowsTopics(run);
});

afterAll(async () => {
  // Whatever happened, leave every broker running for everybody else.
  await stack('up').catch(() => undefined);
  await cancelJob(run.jobName).catch(() => undefined);
  await dropWindowsRun(run);
});

test('SIGKILL of a broker mid-run: windows, sessions and late stay exact', async () => {
  const s = newScenario(run.clean, `run-${run.id}`, 4343);
  const base = Math.floor(Date.now() / 10_000) * 10_000 - 3_600_000;
  const jobId = await submitWindows(run);
  const { records, plans } = generate(s, base, 150, 'k');

  // ~40 records every 300 ms; a running broker is SIGKILLed 8-14 s in and restarted 8 s later.
  let killed = '';
  const killer = (async () => {
    await sleep(8000 + Math.floor(Math.random() * 6000));
    const first = Math.floor(Math.random() * 3);
    // Another engineer's experiment may have a broker down already: kill one that is running.
    for (let i = 0; i < 3 && !killed; i++) {
      const node = String(1 + ((first + i) % 3));
      try {
        await stack('kill-node', node);
        killed = node;
      } catch {
        // not running: try the next
      }
    }
    await sleep(8000);
    if (killed) await stack('restart-node', killed);
  })();
  for (let i = 0; i < records.length; i += 40) {
    await produce(records.slice(i, i + 40));
    await sleep(300);
  }
  await killer;
  expect(killed).not.toBe('');
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
    `${JSON.stringify({ measurement: 'flink-windows-broker-kill', broker: killed, events: s.sent.length, late: last.late.observed, windows: last.windows.observed, sessions: last.sessions.observed, retracted: last.sessions.retracted })}\n`,
  );
});
