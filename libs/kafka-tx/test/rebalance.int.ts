import {
  committedLag,
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  readTopic,
  runTransactionalLoop,
} from '../src';
import type { InRecord, LoopResult } from '../src';
import { clientOptions, compareCopy, sleep, uniqueName, waitFor } from './helpers';

// Instances with different transactional ids share one group: members join and leave while the
// copy runs, so partitions are revoked and reassigned with transactions in flight.
describe('transactional copy across rebalances', () => {
  const o = clientOptions('rebalance');
  const input = uniqueName('rb-in');
  const output = uniqueName('rb-out');
  const group = uniqueName('rb-group');
  let fed = 0;
  let feeding = true;
  const stopAll = new AbortController();
  const loops: Promise<LoopResult>[] = [];

  beforeAll(async () => {
    await createTopics(o, [
      { topic: input, partitions: 6 },
      { topic: output, partitions: 6 },
    ]);
  });

  afterAll(async () => {
    feeding = false;
    stopAll.abort();
    await Promise.all(loops.map((l) => l.catch(() => undefined)));
    await deleteTopics(o, [input, output]);
  });

  function start(tag: string): {
    stop: AbortController;
    committed: () => number;
    done: Promise<LoopResult>;
  } {
    const stop = new AbortController();
    stopAll.signal.addEventListener('abort', () => stop.abort());
    let committed = 0;
    const done = runTransactionalLoop({
      client: { ...o, clientId: `rebalance-${tag}` },
      groupId: group,
      transactionalId: uniqueName(`rb-tx-${tag}`),
      inputTopics: [input],
      maxBatchRecords: 100,
      transform: async (batch: InRecord[]) => {
        await sleep(10); // keep the copy going long enough for three membership changes
        return batch.map((r) => ({
          topic: output,
          partition: r.partition,
          key: r.key,
          value: r.value,
        }));
      },
      hooks: { onCommit: (_ms, n) => (committed += n) },
      signal: stop.signal,
    });
    loops.push(done);
    return { stop, committed: () => committed, done };
  }

  it('copies every record exactly once while members join and leave the group', async () => {
    // Input keeps arriving (about 2,000 records/s) until the last member has joined and copied.
    const producer = await createIdempotentProducer(o);
    const feeder = (async () => {
      while (feeding && fed < 60000) {
        const reports = await producer.send(
          Array.from({ length: 200 }, (_, i) => ({
            topic: input,
            key: `k${fed + i}`,
            value: Buffer.from(String(fed + i)),
          })),
        );
        expect(reports.every((r) => r.ok)).toBe(true);
        fed += reports.length;
        await sleep(100);
      }
    })().finally(() => producer.close());
    const a = start('a');
    await waitFor('A to commit', () => a.committed() >= 300, 60000, 100);
    const b = start('b');
    await waitFor('B to commit', () => b.committed() >= 300, 60000, 100);
    a.stop.abort();
    expect(await a.done).toEqual({ reason: 'stopped' });
    const c = start('c');
    await waitFor('C to commit', () => c.committed() >= 300, 60000, 100);
    feeding = false;
    await feeder;
    const N = fed;
    await waitFor(
      'the group to catch up',
      async () => (await committedLag(o, group, input)) === 0,
      240000,
      1000,
    );
    b.stop.abort();
    c.stop.abort();
    expect(await b.done).toEqual({ reason: 'stopped' });
    expect(await c.done).toEqual({ reason: 'stopped' });

    const outRecs = await readTopic({ ...o, topic: output });
    expect(compareCopy(await readTopic({ ...o, topic: input }), outRecs)).toEqual({
      missing: [],
      duplicated: [],
      unexpected: [],
    });
    expect(outRecs).toHaveLength(N);
    expect(a.committed() + b.committed() + c.committed()).toBe(N);
  });
});
