import {
  committedLag,
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  readTopic,
  runTransactionalLoop,
} from '../src';
import { clientOptions, compareCopy, sleep, stack, uniqueName, waitFor } from './helpers';

// Kills one of the three brokers (SIGKILL through the stack runner) while records are being
// produced and copied, and restarts it before the spec ends: the copy must still be exact.
describe('transactional copy across a broker kill', () => {
  const o = clientOptions('broker-kill');
  const input = uniqueName('bk-in');
  const output = uniqueName('bk-out');
  const group = uniqueName('bk-group');
  const first = Math.floor(Math.random() * 3);
  let node = String(1 + first);
  let killed = false;
  // Kept here so that a failed or timed-out spec still stops the loop (its native clients would keep jest alive).
  const stop = new AbortController();
  let loop: Promise<unknown> = Promise.resolve();

  beforeAll(async () => {
    await createTopics(o, [
      { topic: input, partitions: 3 },
      { topic: output, partitions: 3 },
    ]);
  });

  afterAll(async () => {
    stop.abort();
    await loop.catch(() => undefined);
    if (killed) await stack('restart-node', node);
    await deleteTopics(o, [input, output]);
  });

  it('copies every record exactly once while a broker is killed and restarted', async () => {
    let committedTx = 0;
    loop = runTransactionalLoop({
      client: o,
      groupId: group,
      transactionalId: uniqueName('bk-tx'),
      inputTopics: [input],
      maxBatchRecords: 200,
      transform: (batch) =>
        batch.map((r) => ({ topic: output, partition: r.partition, key: r.key, value: r.value })),
      hooks: { onCommit: () => committedTx++ },
      signal: stop.signal,
    });

    // A steady input (20,000 records over about 10 s) so that the kill lands mid-stream.
    const producer = await createIdempotentProducer(o);
    let acked = 0;
    const feeding = (async () => {
      for (let i = 0; i < 40; i++) {
        const reports = await producer.send(
          Array.from({ length: 500 }, (_, j) => ({
            topic: input,
            key: `k${i * 500 + j}`,
            value: Buffer.from(String(i * 500 + j)),
          })),
        );
        acked += reports.filter((r) => r.ok).length;
        await sleep(250);
      }
    })();

    await waitFor('the copy to be under way', () => committedTx >= 5, 60000, 100);
    // Another engineer's experiment may have a broker down already: kill one that is running.
    for (let i = 0; i < 3 && !killed; i++) {
      node = String(1 + ((first + i) % 3));
      try {
        await stack('kill-node', node);
        killed = true;
      } catch (e) {
        o.logger.warn({ node, err: String(e) }, 'could not kill this broker; trying the next');
      }
    }
    expect(killed).toBe(true);
    o.logger.warn({ node }, 'killed broker');
    await sleep(8000);
    await stack('restart-node', node);
    killed = false;
    await feeding;
    await producer.close();

    await waitFor(
      'the copy to catch up',
      async () => (await committedLag(o, group, input)) === 0,
      240000,
      1000,
    );
    stop.abort();
    expect(await loop).toEqual({ reason: 'stopped' });

    const inRecs = await readTopic({ ...o, topic: input });
    const outRecs = await readTopic({ ...o, topic: output });
    // The idempotent producer wrote each acknowledged record once, and the copy holds each once.
    expect(inRecs).toHaveLength(acked);
    expect(new Set(inRecs.map((r) => String(r.value))).size).toBe(acked);
    expect(compareCopy(inRecs, outRecs)).toEqual({ missing: [], duplicated: [], unexpected: [] });
    expect(outRecs).toHaveLength(inRecs.length);
  });
});
