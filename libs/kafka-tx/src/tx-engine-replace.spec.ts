/** Specs of the engine replacing a transactional producer that is stuck on a dead coordinator. */
import {
  ERRORS,
  FakeClock,
  FakeCluster,
  FakeConsumer,
  FakeTxProducer,
  silentLogger,
} from '../test/fake-kafka';
import type { FakeError } from '../test/fake-kafka';
import { runTxEngine } from './tx-engine';
import type { TxEngineDeps } from './tx-engine';
import type { InRecord, OutRecord } from './types';

const transport: FakeError = {
  code: -195,
  message: 'Local: Broker transport failure',
  isRetriable: true,
};
const badState: FakeError = { code: -172, message: 'Local: Erroneous state' };

const identity = (batch: InRecord[]): OutRecord[] =>
  batch.map((r) => ({ topic: 'out', partition: r.partition, key: r.key, value: r.value }));

function setup(cluster: FakeCluster) {
  const clock = new FakeClock();
  const consumer = new FakeConsumer(cluster, clock);
  const producers = [new FakeTxProducer(cluster)];
  const stop = new AbortController();
  consumer.beforeConsume = () => {
    if (cluster.allCommitted() || clock.t > 1e7) stop.abort();
  };
  const deps: TxEngineDeps = {
    consumer,
    producer: producers[0] as FakeTxProducer,
    openProducer: () => {
      const p = new FakeTxProducer(cluster);
      producers.push(p);
      return Promise.resolve(p);
    },
    transform: identity,
    maxBatchRecords: 7,
    maxBatchMs: 50,
    commitRetryBudgetMs: 1000,
    hooks: {},
    signal: stop.signal,
    logger: silentLogger,
    clock,
  };
  return { consumer, producers, deps };
}

const values = (rs: { value: Buffer | null }[]): string[] => rs.map((r) => String(r.value)).sort();
const inputs = (c: FakeCluster): string[] => values([...c.input.values()].flat());

describe('runTxEngine replacing a stuck producer', () => {
  it('replaces the producer on a transport error in sendOffsets instead of retrying it', async () => {
    const cluster = new FakeCluster(3, 10);
    cluster.fail('sendOffsets', transport);
    const { deps, producers } = setup(cluster);
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'stopped' });
    expect(producers).toHaveLength(2);
    const old = producers[0] as FakeTxProducer;
    // The stuck producer gets no further call (no retry, no abort) after its failed sendOffsets.
    expect(old.calls.slice(-1)).toEqual(['sendOffsets']);
    expect((producers[1] as FakeTxProducer).calls[0]).toBe('init');
    expect(values(cluster.output)).toEqual(inputs(cluster));
  });

  it('keeps exactly-once when a timed-out commit went through: rewinds to the committed offsets', async () => {
    const cluster = new FakeCluster(2, 10);
    const { deps, producers } = setup(cluster);
    const first = producers[0] as FakeTxProducer;
    const commit = first.commit.bind(first);
    let lost = false;
    first.commit = async () => {
      await commit();
      if (!lost) {
        lost = true; // committed on the broker, but the answer never arrived
        throw Object.assign(new Error(ERRORS.retriable.message), ERRORS.retriable);
      }
    };
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'stopped' });
    expect(producers).toHaveLength(2);
    expect(values(cluster.output)).toEqual(inputs(cluster));
  });

  it('replaces the producer when abort fails with an invalid state', async () => {
    const cluster = new FakeCluster(2, 10);
    cluster.fail('commit', ERRORS.abortable);
    cluster.fail('abort', badState);
    const { deps, producers } = setup(cluster);
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'stopped' });
    expect(producers).toHaveLength(2);
    expect(values(cluster.output)).toEqual(inputs(cluster));
  });

  it('replaces the producer when the commit retry budget is spent', async () => {
    const cluster = new FakeCluster(2, 10);
    const slow: FakeError = {
      code: 15,
      message: 'Broker: Coordinator not available',
      isRetriable: true,
    };
    cluster.fail('commit', slow, 50);
    const { deps, producers } = setup(cluster);
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'stopped' });
    expect(producers.length).toBeGreaterThanOrEqual(2);
    expect(values(cluster.output)).toEqual(inputs(cluster));
  });

  it('stops as fenced, without another replacement, when the fresh producer is fenced', async () => {
    const cluster = new FakeCluster(2, 10);
    cluster.fail('sendOffsets', transport);
    const { deps, producers } = setup(cluster);
    const open = deps.openProducer as () => Promise<FakeTxProducer>;
    deps.openProducer = async () => {
      const p = await open();
      cluster.fail('init', ERRORS.fenced);
      return p;
    };
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'fenced' });
    expect(producers).toHaveLength(2);
    expect(cluster.output).toEqual([]);
  });

  it('never replaces a producer fenced by another instance', async () => {
    const cluster = new FakeCluster(2, 10);
    cluster.fail('commit', ERRORS.fenced);
    const { deps, producers } = setup(cluster);
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'fenced' });
    expect(producers).toHaveLength(1);
  });
});
