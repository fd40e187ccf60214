/**
 * The windows job on Flink's changelog state backend (`--changelog on`): exact, and exact again after a cancel and a
 * resume from a retained checkpoint whose state is in the changelog (docs/FLINK.md, "State backend").
 */

import * as fs from 'fs';
import * as path from 'path';
import { cancelJob, produce, repoRoot } from './harness';
import { submitWindows, untilExact } from './windows-run';
import { windowsRunForFile } from './windows-run-file';
import { bridges, generate, maxTime, newScenario, probes } from './windows-scenario';

const run = windowsRunForFile('changelog');
const probeRun = `probe-${run.id}`;
const changelogOf = (jobId: string): string => path.join(repoRoot(), '.run/flink/changelog', jobId);
const jobIds: string[] = [];

afterAll(() => {
  for (const id of jobIds) fs.rmSync(changelogOf(id), { recursive: true, force: true });
});

test('with the changelog state backend: exact, and exact after a resume from its checkpoint', async () => {
  const s = newScenario(run.clean, `run-${run.id}`, 20261205);
  const base = Math.floor(Date.now() / 10_000) * 10_000 - 3_600_000;
  jobIds.push(await submitWindows(run, ['--changelog', 'on']));

  const p1 = generate(s, base, 40, 'a');
  await produce(p1.records);
  await produce(probes(s, probeRun, maxTime(s) + 60_000));
  await untilExact(run, s, probeRun, 'exact on the changelog backend');
  // The state changes went to the cluster's changelog storage (state.changelog.dstl.dfs.base-path), per job.
  expect(fs.readdirSync(changelogOf(jobIds[0] ?? '')).length).toBeGreaterThan(0);

  // Resume from the retained checkpoint: the restored state (windows' session sets, final sessions) comes from the
  // changelog; on-time events read behind the watermark then correct final windows and bridge final sessions, which
  // only the restored state can get right.
  await cancelJob(run.jobName);
  jobIds.push(await submitWindows(run, ['--changelog', 'on']));
  await produce(bridges(s, p1.plans));
  await produce(probes(s, probeRun, maxTime(s) + 60_000));
  const e = await untilExact(run, s, probeRun, 'exact after the resume');
  expect(e.sessions.retracted).toBeGreaterThan(0);
});
