/**
 * The jest-only part of the windows runs (apart from windows-run.ts, which the benchmark compiles without jest's
 * globals).
 */
import { cancelJob, jobState, produce, sleep, waitFor } from './harness';
import {
  createWindowsTopics,
  dropWindowsRun,
  freshWindowsRun,
  settle,
  submitWindows,
  summary,
  type WindowsEvidence,
  type WindowsRun,
} from './windows-run';
import { bridges, generate, maxTime, newScenario, probes } from './windows-scenario';

/**
 * A fresh run for one test file: its topics created before the file's tests, its job cancelled and its topics and
 * checkpoints dropped after them. `restore` runs first, whatever happened (e.g. restarting a process a test killed).
 */
export function windowsRunForFile(label: string, restore?: () => Promise<void>): WindowsRun {
  const r = freshWindowsRun(label);
  beforeAll(async () => {
    await createWindowsTopics(r);
  });
  afterAll(async () => {
    await restore?.().catch(() => undefined);
    await cancelJob(r.jobName).catch(() => undefined);
    await dropWindowsRun(r);
  });
  return r;
}

/**
 * The kill specs: the job runs a seeded scenario, ~40 records every 300 ms, while `fault` strikes (it times itself,
 * see faults.ts); once the job is RUNNING again, probes and the bridges follow, and agg.windows, agg.sessions and
 * events.late (read_committed) must match the oracle exactly within 240 s, with no version committed twice and some
 * sessions retracted. Prints a measurement line `measurement` with the fault's result; resolves to that result.
 */
export async function expectExactAcrossFault<T>(
  run: WindowsRun,
  seed: number,
  measurement: string,
  fault: () => Promise<T>,
): Promise<T> {
  const probeRun = `probe-${run.id}`;
  const s = newScenario(run.clean, `run-${run.id}`, seed);
  const base = Math.floor(Date.now() / 10_000) * 10_000 - 3_600_000;
  const jobId = await submitWindows(run);
  const { records, plans } = generate(s, base, 150, 'k');

  const struck = fault();
  for (let i = 0; i < records.length; i += 40) {
    await produce(records.slice(i, i + 40));
    await sleep(300);
  }
  const result = await struck;
  await waitFor(
    `job ${jobId} RUNNING again`,
    () => jobState(jobId),
    (st) => st === 'RUNNING',
    300000,
  );

  await produce(probes(s, probeRun, maxTime(s) + 60_000));
  await produce(bridges(s, plans));
  await produce(probes(s, probeRun, maxTime(s) + 60_000));
  const last = await settle(run, s, probeRun, 'exact after the fault', 240000);
  expect(summary(last)).toEqual(summary(exactOf(last)));
  expect(last.sessions.retracted).toBeGreaterThan(0);
  process.stderr.write(
    `${JSON.stringify({ measurement, fault: result, events: s.sent.length, late: last.late.observed, windows: last.windows.observed, sessions: last.sessions.observed, retracted: last.sessions.retracted })}\n`,
  );
  return result;
}

/** `e` as it would be if it were exact: nothing missing, duplicated, unexpected, altered, differing or not final. */
function exactOf(e: WindowsEvidence): WindowsEvidence {
  const exactAggregate = {
    missing: [],
    unexpected: [],
    differing: [],
    notFinal: [],
    duplicateVersions: [],
    undecodable: 0,
  };
  return {
    late: { ...e.late, missing: [], duplicated: [], unexpected: [], altered: [] },
    windows: { ...e.windows, ...exactAggregate },
    sessions: { ...e.sessions, ...exactAggregate },
  };
}
