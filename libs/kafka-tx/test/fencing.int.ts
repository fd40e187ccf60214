import {
  committedLag,
  createTopics,
  deleteTopics,
  readTopic,
  runTransactionalLoop,
  transactionCoordinator,
} from '../src';
import type { InRecord, LoopResult } from '../src';
import {
  BOOTSTRAP,
  clientOptions,
  compareCopy,
  runKafkaTool,
  seed,
  sleep,
  uniqueName,
  waitFor,
} from './helpers';

describe('fencing', () => {
  const o = clientOptions('fencing');
  const input = uniqueName('fence-in');
  const output = uniqueName('fence-out');
  const group = uniqueName('fence-group');
  const txId = uniqueName('fence-tx');
  const N = 20000;

  beforeAll(async () => {
    await createTopics(o, [
      { topic: input, partitions: 3 },
      { topic: output, partitions: 3 },
    ]);
    expect(await seed(o, input, 0, N)).toBe(N);
  });

  const stopAll = new AbortController();
  const loops: Promise<unknown>[] = [];

  afterAll(async () => {
    // A failed spec must still stop both loops, or their native clients keep jest alive.
    stopAll.abort();
    await Promise.all(loops.map((l) => l.catch(() => undefined)));
    await deleteTopics(o, [input, output]);
  });

  const tagged = (tag: string) => async (batch: InRecord[]) => {
    await sleep(5); // slow enough that the older instance is still copying when the newer one starts
    return batch.map((r) => ({
      topic: output,
      partition: r.partition,
      key: r.key,
      value: r.value,
      headers: { instance: tag },
    }));
  };

  it('fences the older of two instances with the same transactional id; it writes nothing after', async () => {
    let aCommitted = 0;
    let aFenced = 0;
    let aCommitsAfterFence = 0;
    const a = runTransactionalLoop({
      client: { ...o, clientId: 'fencing-a' },
      groupId: group,
      transactionalId: txId,
      inputTopics: [input],
      maxBatchRecords: 100,
      transform: tagged('A'),
      hooks: {
        onCommit: (_ms, n) => {
          if (aFenced > 0) aCommitsAfterFence++;
          aCommitted += n;
        },
        onFenced: () => aFenced++,
      },
      signal: stopAll.signal,
    });
    loops.push(a);
    await waitFor('instance A to commit', () => aCommitted >= 300, 60000, 100);

    const stopB = new AbortController();
    stopAll.signal.addEventListener('abort', () => stopB.abort());
    const b = runTransactionalLoop({
      client: { ...o, clientId: 'fencing-b' },
      groupId: group,
      transactionalId: txId,
      inputTopics: [input],
      maxBatchRecords: 500,
      transform: tagged('B'),
      signal: stopB.signal,
    });
    loops.push(b);
    const aResult: LoopResult = await a;
    expect(aResult).toEqual({ reason: 'fenced' });
    expect(aFenced).toBe(1);
    const aCommittedAtFence = aCommitted;

    await waitFor(
      'instance B to copy the rest',
      async () => (await committedLag(o, group, input)) === 0,
      240000,
      1000,
    );
    stopB.abort();
    expect(await b).toEqual({ reason: 'stopped' });

    const outRecs = await readTopic({ ...o, topic: output });
    const fromA = outRecs.filter((r) => r.headers.instance?.toString() === 'A').length;
    expect(aCommitsAfterFence).toBe(0);
    expect(fromA).toBe(aCommittedAtFence);
    expect(compareCopy(await readTopic({ ...o, topic: input }), outRecs)).toEqual({
      missing: [],
      duplicated: [],
      unexpected: [],
    });
    expect(outRecs).toHaveLength(N);
  });

  it("names the transaction's coordinator as Kafka's own TransactionsCommand does", async () => {
    // The previous spec ran transactions under txId, so the broker has its state.
    const ours = await transactionCoordinator(o, txId);
    const stdout = await runKafkaTool('org.apache.kafka.tools.TransactionsCommand', [
      '--bootstrap-server',
      BOOTSTRAP,
      'describe',
      '--transactional-id',
      txId,
    ]);
    const [head, row] = stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t').map((c) => c.trim()));
    const theirs = Number(row?.[head?.indexOf('CoordinatorId') ?? -1]);
    expect(Number.isInteger(theirs)).toBe(true);
    expect(ours).toBe(theirs);
  });
});
