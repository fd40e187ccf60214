import { committedLag, createTopics, deleteTopics, readTopic } from '../src';
import { killAllChildren, startFixture } from './child';
import { BOOTSTRAP, clientOptions, compareCopy, seed, sleep, uniqueName, waitFor } from './helpers';

// The copier runs the built library (dist/) in a child process so that it can be SIGKILLed mid-transaction.
describe('transactional copy under SIGKILL', () => {
  const o = clientOptions('copy-crash');
  const input = uniqueName('crash-in');
  const output = uniqueName('crash-out');
  const group = uniqueName('crash-group');
  const txId = uniqueName('crash-tx');
  const N = 20000;

  beforeAll(async () => {
    await createTopics(o, [
      { topic: input, partitions: 3 },
      { topic: output, partitions: 3 },
    ]);
    expect(await seed(o, input, 0, N)).toBe(N);
  });

  afterAll(async () => {
    await killAllChildren();
    await deleteTopics(o, [input, output]);
  });

  it('holds every input record exactly once in the output after five SIGKILLs and restarts', async () => {
    const kills = 5;
    for (let k = 0; k < kills; k++) {
      const c = startFixture('copier.js', [
        BOOTSTRAP,
        input,
        output,
        group,
        txId,
        `run${k}`,
        '200',
      ]);
      const commits = 2 + (k % 3);
      await c.waitUntil(
        `${commits} commits`,
        (ls) => ls.filter((l) => 'commit' in l).length >= commits,
      );
      // Land the kill at a varying point of the next transaction.
      await sleep(Math.floor(Math.random() * 150));
      const exit = await c.stop('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
    }
    const lagBeforeFinal = await committedLag(o, group, input);
    expect(lagBeforeFinal).toBeGreaterThan(0);

    const last = startFixture('copier.js', [BOOTSTRAP, input, output, group, txId, 'final', '500']);
    await waitFor(
      'the copier to catch up',
      async () => (await committedLag(o, group, input)) === 0,
      240000,
      1000,
    );
    expect((await last.stop('SIGTERM')).code).toBe(0);

    const inRecs = await readTopic({ ...o, topic: input });
    const outRecs = await readTopic({ ...o, topic: output });
    expect(inRecs).toHaveLength(N);
    expect(compareCopy(inRecs, outRecs)).toEqual({ missing: [], duplicated: [], unexpected: [] });
    expect(outRecs).toHaveLength(N);
    // Evidence that some kills hit an open transaction: aborted records exist but are not read_committed.
    const uncommitted = await readTopic({ ...o, topic: output, isolation: 'read_uncommitted' });
    o.logger.warn(
      { committed: outRecs.length, uncommitted: uncommitted.length },
      'output sizes (informational)',
    );
    expect(uncommitted.length).toBeGreaterThanOrEqual(outRecs.length);
  });
});
