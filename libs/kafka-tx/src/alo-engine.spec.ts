import { FakeClock, FakeCluster, FakeConsumer, silentLogger } from '../test/fake-kafka';
import { BatchHandlerError, runAloEngine } from './alo-engine';
import type { AloEngineDeps } from './alo-engine';
import type { InRecord } from './types';

function setup(
  cluster: FakeCluster,
  onBatch: (r: InRecord[]) => Promise<void>,
  over: Partial<AloEngineDeps> = {},
) {
  const clock = new FakeClock();
  const consumer = new FakeConsumer(cluster, clock);
  const stop = new AbortController();
  consumer.beforeConsume = () => {
    if (cluster.allCommitted() || clock.t > 1e7) stop.abort();
  };
  const deps: AloEngineDeps = {
    consumer,
    onBatch,
    maxBatchRecords: 8,
    maxBatchMs: 100,
    maxAttempts: 3,
    hooks: {},
    signal: stop.signal,
    logger: silentLogger,
    clock,
    ...over,
  };
  return { clock, consumer, stop, deps };
}

const values = (rs: InRecord[]): string[] => rs.map((r) => String(r.value)).sort();

describe('runAloEngine', () => {
  it('hands every record to onBatch and commits only offsets of handled batches', async () => {
    const cluster = new FakeCluster(3, 10);
    const sink: InRecord[] = [];
    const { deps, consumer } = setup(cluster, (rs) => {
      // At the moment a batch is handled, none of its offsets may be committed yet.
      for (const r of rs)
        expect(cluster.committed.get(r.partition) ?? 0).toBeLessThanOrEqual(r.offset);
      sink.push(...rs);
      return Promise.resolve();
    });
    await runAloEngine(deps);
    expect(values(sink)).toEqual(values([...cluster.input.values()].flat()));
    expect(cluster.allCommitted()).toBe(true);
    expect(consumer.commits.flat().every((o) => o.offset > 0)).toBe(true);
  });

  it('flushes a partial batch on the timer when the topic is quiet', async () => {
    const cluster = new FakeCluster(1, 3);
    const batches: number[] = [];
    const { deps } = setup(cluster, (rs) => {
      batches.push(rs.length);
      return Promise.resolve();
    });
    await runAloEngine(deps);
    expect(batches).toEqual([3]);
  });

  it('retries a failing handler with the same batch and never skips it', async () => {
    const cluster = new FakeCluster(1, 5);
    const attempts: string[][] = [];
    const { deps } = setup(cluster, (rs) => {
      attempts.push(values(rs));
      return attempts.length < 3 ? Promise.reject(new Error('sink down')) : Promise.resolve();
    });
    await runAloEngine(deps);
    expect(attempts).toHaveLength(3);
    expect(attempts[0]).toEqual(attempts[2]);
    expect(cluster.committed.get(0)).toBe(5);
  });

  it('propagates a handler that keeps failing, without committing the batch', async () => {
    const cluster = new FakeCluster(1, 5);
    const { deps, consumer } = setup(cluster, () => Promise.reject(new Error('sink down')));
    await expect(runAloEngine(deps)).rejects.toBeInstanceOf(BatchHandlerError);
    expect(consumer.commits).toEqual([]);
    expect(cluster.committed.get(0)).toBeUndefined();
  });

  it('redelivers after a crash between handling and committing (at-least-once, nothing lost)', async () => {
    const cluster = new FakeCluster(2, 10);
    const sink: InRecord[] = [];
    // First consumer: handles one batch, then "crashes" before its commit reaches the broker.
    const first = setup(cluster, (rs) => {
      sink.push(...rs);
      first.stop.abort();
      return Promise.resolve();
    });
    first.consumer.commitAsync = () => undefined;
    first.consumer.commitSync = () => Promise.resolve();
    await runAloEngine(first.deps);
    expect(cluster.committed.size).toBe(0);
    const second = setup(cluster, (rs) => {
      sink.push(...rs);
      return Promise.resolve();
    });
    await runAloEngine(second.deps);
    const all = values([...cluster.input.values()].flat());
    expect(new Set(values(sink))).toEqual(new Set(all));
    expect(sink.length).toBeGreaterThan(all.length);
  });

  it('flushes the pending batch before releasing partitions on a rebalance', async () => {
    const cluster = new FakeCluster(1, 20);
    const order: string[] = [];
    const { deps, consumer } = setup(
      cluster,
      (rs) => {
        order.push(`batch:${rs.length}`);
        return Promise.resolve();
      },
      { maxBatchRecords: 100, maxBatchMs: 1000 },
    );
    const apply = consumer.applyRebalances.bind(consumer);
    consumer.applyRebalances = () => {
      order.push('rebalance');
      apply();
    };
    let n = 0;
    const consume = consumer.consume.bind(consumer);
    consumer.consume = async (max, timeout) => {
      const got = await consume(Math.min(max, 5), timeout);
      if (++n === 2)
        consumer.queue.push(
          { kind: 'revoke', partitions: [0] },
          { kind: 'assign', partitions: [0] },
        );
      return got;
    };
    await runAloEngine(deps);
    expect(order.slice(0, 3)).toEqual(['rebalance', 'batch:10', 'rebalance']);
    expect(cluster.committed.get(0)).toBe(20);
  });
});
