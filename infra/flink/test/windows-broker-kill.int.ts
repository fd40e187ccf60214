/**
 * The windows job survives a SIGKILL of a Kafka broker mid-run (its sinks' transactions and its source's partitions
 * move to other leaders): agg.windows, agg.sessions and events.late (read_committed) match the oracle exactly, with no
 * version committed twice.
 */

import { killBroker, stackUp, strikeSoon } from './faults';
import { expectExactAcrossFault, windowsRunForFile } from './windows-run-file';

// Whatever happened, every broker is left running for everybody else.
const run = windowsRunForFile('winbk', stackUp);

test('SIGKILL of a broker mid-run: windows, sessions and late stay exact', async () => {
  // A running broker is killed 8-14 s in and restarted 8 s later.
  const broker = await expectExactAcrossFault(run, 4343, 'flink-windows-broker-kill', () =>
    strikeSoon(killBroker),
  );
  expect(broker).not.toBe('');
});
