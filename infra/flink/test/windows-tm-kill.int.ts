/**
 * The windows job survives a SIGKILL of the Flink TaskManager mid-run: after recovery from the last checkpoint,
 * agg.windows, agg.sessions and events.late (read_committed) match the oracle exactly, with no version committed twice.
 */

import { killTaskManager, stackUp, strikeSoon } from './faults';
import { expectExactAcrossFault, windowsRunForFile } from './windows-run-file';

// Whatever happened, a TaskManager is left running for everybody else.
const run = windowsRunForFile('wintm', stackUp);

test('SIGKILL of the TaskManager mid-run: windows, sessions and late stay exact', async () => {
  // Killed 8-14 s in, usually inside an open transaction.
  const killedPid = await expectExactAcrossFault(run, 4242, 'flink-windows-tm-kill', () =>
    strikeSoon(killTaskManager),
  );
  expect(killedPid).toBeGreaterThan(0);
});
