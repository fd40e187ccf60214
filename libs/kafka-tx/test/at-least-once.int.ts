import {
  BatchHandlerError,
  committedLag,
  createTopics,
  deleteTopics,
  runAtLeastOnceConsumer,
} from '../src';
import { killAllChildren, startFixture } from './child';
import { BOOTSTRAP, clientOptions, seed, uniqueName, waitFor } from './helpers';

describe('runAtLeastOnceConsumer', () => {
  const o = clientOptions('at-least-once');
  const topic = uniqueName('alo');
  const N = 2000;
  const all = Array.from({ length: N }, (_, i) => String(i));

  beforeAll(async () => {
    await createTopics(o, [{ topic, partitions: 3 }]);
    expect(await seed(o, topic, 0, N)).toBe(N);
  });

  const stopAll = new AbortController();
  const runs: Promise<unknown>[] = [];

  afterAll(async () => {
    await killAllChildren();
    stopAll.abort();
    await Promise.all(runs.map((r) => r.catch(() => undefined)));
    await deleteTopics(o, [topic]);
  });

  it('redelivers a batch whose consumer died after handling it but before committing (never lost)', async () => {
    const group = uniqueName('alo-crash');
    const first = startFixture('sink-consumer.js', [BOOTSTRAP, topic, group, 'crash-after-first']);
    expect((await first.exited).signal).toBe('SIGKILL');
    const firstBatch = first.jsonLines().flatMap((l) => l.batch as string[]);
    expect(firstBatch.length).toBeGreaterThan(0);
    // Nothing was committed: the whole topic is still lag.
    expect(await committedLag(o, group, topic)).toBe(N);

    const second = startFixture('sink-consumer.js', [BOOTSTRAP, topic, group, 'run']);
    await waitFor(
      'the second consumer to commit everything',
      async () => (await committedLag(o, group, topic)) === 0,
      120000,
      1000,
    );
    expect((await second.stop('SIGTERM')).code).toBe(0);
    const written = new Set(second.jsonLines().flatMap((l) => l.batch as string[]));
    expect(firstBatch.every((v) => written.has(v))).toBe(true);
    expect([...written].sort()).toEqual([...all].sort());
  });

  it('retries a failing handler with the same records and commits only after it succeeded', async () => {
    const group = uniqueName('alo-retry');
    const stop = new AbortController();
    stopAll.signal.addEventListener('abort', () => stop.abort());
    const seen = new Set<string>();
    let failures = 0;
    let lagWhileFailing = -1;
    const run = runAtLeastOnceConsumer({
      client: o,
      groupId: group,
      topics: [topic],
      maxBatchMs: 200,
      onBatch: async (records) => {
        if (failures < 2) {
          failures++;
          lagWhileFailing = await committedLag(o, group, topic);
          throw new Error('sink unavailable');
        }
        for (const r of records) seen.add(String(r.value));
      },
      signal: stop.signal,
    });
    runs.push(run);
    await waitFor(
      'everything to be committed',
      async () => (await committedLag(o, group, topic)) === 0,
      120000,
      500,
    );
    stop.abort();
    await run;
    expect(failures).toBe(2);
    expect(lagWhileFailing).toBe(N);
    expect([...seen].sort()).toEqual([...all].sort());
  });

  it('propagates a handler that never succeeds and commits nothing', async () => {
    const group = uniqueName('alo-fail');
    const run = runAtLeastOnceConsumer({
      client: o,
      groupId: group,
      topics: [topic],
      maxAttempts: 2,
      onBatch: () => Promise.reject(new Error('sink down for good')),
    });
    await expect(run).rejects.toBeInstanceOf(BatchHandlerError);
    expect(await committedLag(o, group, topic)).toBe(N);
  });
});
