/**
 * The windows job at the end of a long backlog: the records that follow a run's tail carry an ingest time minutes
 * later (the probe's, sent while the pipeline caught up), so the watermark passes every session's finality and the
 * state retention in one step. Every session and window must still get its final row before its state is dropped
 * (docs/FLINK.md, "A watermark that jumps past finality and retention at once").
 */

import { produce } from './harness';
import { submitWindows, untilExact } from './windows-run';
import { windowsRunForFile } from './windows-run-file';
import { generate, maxTime, newScenario, probes } from './windows-scenario';

const run = windowsRunForFile('catchup');
const probeRun = `probe-${run.id}`;

test('a watermark that jumps past finality and a 10 s retention at once: every session and window final, exact', async () => {
  const s = newScenario(run.clean, `run-${run.id}`, 20261204);
  const base = Math.floor(Date.now() / 10_000) * 10_000 - 3_600_000;
  // The backlog is in the topic before the job starts (earliest offsets), as after a catch-up: the run's tail and,
  // right behind it in every partition, probes 20 minutes later in ingest time. With a 10 s retention the first
  // watermark after the tail is past every session's finality plus its retention.
  await produce(generate(s, base, 40, 'a').records);
  await produce(probes(s, probeRun, maxTime(s) + 20 * 60_000));
  await submitWindows(run, ['--state-retention-ms', '10000']);
  const e = await untilExact(run, s, probeRun, 'exact after the jump');
  expect(e.sessions.observed).toBeGreaterThan(0);
});
