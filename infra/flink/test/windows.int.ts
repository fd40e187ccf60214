/**
 * The windows job on its own topics: lateness by rule at the L edges, windows and sessions exact when on-time events
 * are read far behind the watermark (after finality, and after a 60 s stop and a resume from the retained checkpoint,
 * with half the partitions read a minute behind the other half), merges retracting replaced session keys, probes
 * excluded from aggregates but routed late when late.
 */

import { cancelJob, produce, sleep } from './harness';
import { allExact, submitWindows, untilExact } from './windows-run';
import { windowsRunForFile } from './windows-run-file';
import { bridges, generate, maxTime, newScenario, probes } from './windows-scenario';

const run = windowsRunForFile('win');
const probeRun = `probe-${run.id}`;

test('windows, sessions and late stay exact through reads behind the watermark and a 60 s stop', async () => {
  const s = newScenario(run.clean, `run-${run.id}`, 20261130);
  const base = Math.floor(Date.now() / 10_000) * 10_000 - 3_600_000;
  await submitWindows(run);

  // Phase 1: sessions with disorder inside L, rule edges, minutes-late events and in-L merges; then probes make it final.
  const p1 = generate(s, base, 40, 'a');
  await produce(p1.records);
  await produce(probes(s, probeRun, maxTime(s) + 60_000));
  const e1 = await untilExact(run, s, probeRun, 'phase 1 exact');
  expect(e1.late.observed).toBeGreaterThan(0);

  // Phase 2: on-time events far behind the watermark (after their windows and sessions are final): counted, never late;
  // each bridges two final sessions, so the later key must be retracted.
  await produce(bridges(s, p1.plans));
  await produce(probes(s, probeRun, maxTime(s) + 60_000));
  const e2 = await untilExact(run, s, probeRun, 'phase 2 (bridges after finality) exact');
  expect(e2.sessions.retracted).toBeGreaterThan(0);

  // Phase 3: stop the job; meanwhile partitions 0-2 receive a minute of newer data; resume from the checkpoint after
  // ~60 s; once partitions 3-5 have gone idle and the watermark has run ahead, they receive older on-time events.
  const stoppedAt = Date.now();
  await cancelJob(run.jobName);
  const base3 = Math.ceil((maxTime(s) + 120_000) / 10_000) * 10_000;
  const ahead = generate(s, base3 + 60_000, 30, 'c', [0, 1, 2]);
  await produce(ahead.records);
  await sleep(Math.max(0, 60_000 - (Date.now() - stoppedAt)));
  await submitWindows(run);
  await sleep(12_000);
  const behind = generate(s, base3, 30, 'd', [3, 4, 5]);
  await produce(behind.records);
  await produce(bridges(s, ahead.plans, () => 4));
  await produce(probes(s, probeRun, maxTime(s) + 60_000));
  const e3 = await untilExact(
    run,
    s,
    probeRun,
    'phase 3 (stop, resume, partitions read out of order) exact',
  );

  expect(allExact(e3)).toBe(true);
  process.stderr.write(
    `${JSON.stringify({ measurement: 'flink-windows-int', events: s.sent.length, late: e3.late.observed, windows: e3.windows.observed, sessions: e3.sessions.observed, retracted: e3.sessions.retracted })}\n`,
  );
});
