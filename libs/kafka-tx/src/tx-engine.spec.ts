import fc from 'fast-check';
import {
  ERRORS,
  FakeClock,
  FakeCluster,
  FakeConsumer,
  FakeTxProducer,
  silentLogger,
} from '../test/fake-kafka';
import type { FakeError, Op } from '../test/fake-kafka';
import { FatalKafkaError, runTxEngine } from './tx-engine';
import type { TxEngineDeps } from './tx-engine';
import type { InRecord, OutRecord } from './types';

const identity = (batch: InRecord[]): OutRecord[] =>
  batch.map((r) => ({ topic: 'out', partition: r.partition, key: r.key, value: r.value }));

function setup(cluster: FakeCluster, over: Partial<TxEngineDeps> = {}) {
  const clock = new FakeClock();
  const consumer = new FakeConsumer(cluster, clock);
  const producer = new FakeTxProducer(cluster);
  const stop = new AbortController();
  // Stop once everything is committed, like an operator who watched the lag reach zero.
  // A run that makes no progress is cut off (and then fails its assertions) instead of hanging.
  consumer.beforeConsume = () => {
    if (cluster.allCommitted() || clock.t > 1e7) stop.abort();
  };
  const deps: TxEngineDeps = {
    consumer,
    producer,
    transform: identity,
    maxBatchRecords: 7,
    maxBatchMs: 50,
    commitRetryBudgetMs: 1000,
    hooks: {},
    signal: stop.signal,
    logger: silentLogger,
    clock,
    ...over,
  };
  return { clock, consumer, producer, stop, deps };
}

function outputValues(cluster: FakeCluster): string[] {
  return cluster.output.map((r) => String(r.value)).sort();
}

function inputValues(cluster: FakeCluster): string[] {
  return [...cluster.input.values()]
    .flat()
    .map((r) => String(r.value))
    .sort();
}

describe('runTxEngine', () => {
  it('copies every input record exactly once and commits the input offsets with them', async () => {
    const cluster = new FakeCluster(3, 20);
    const { deps } = setup(cluster);
    const commits: number[] = [];
    deps.hooks = { onCommit: (_ms, n) => commits.push(n) };
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'stopped' });
    expect(outputValues(cluster)).toEqual(inputValues(cluster));
    expect(commits.reduce((a, b) => a + b, 0)).toBe(60);
    expect(Math.max(...commits)).toBeLessThanOrEqual(7);
    expect(cluster.allCommitted()).toBe(true);
  });

  it('does nothing with an empty input and stops when asked', async () => {
    const cluster = new FakeCluster(2, 0);
    const { deps, producer } = setup(cluster);
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'stopped' });
    expect(cluster.output).toEqual([]);
    expect(producer.calls).toEqual(['init']);
  });

  it('aborts and rewinds when the transform throws, then delivers the batch once', async () => {
    const cluster = new FakeCluster(2, 10);
    let thrown = 0;
    const aborts: unknown[] = [];
    const { deps } = setup(cluster, {
      transform: (b) => {
        if (thrown < 2) {
          thrown++;
          throw new Error('transform failed');
        }
        return identity(b);
      },
      hooks: { onAbort: (e) => aborts.push(e) },
    });
    await runTxEngine(deps);
    expect(aborts).toHaveLength(2);
    expect(outputValues(cluster)).toEqual(inputValues(cluster));
  });

  it('keeps exactly-once under any mix of retriable and abortable failures (property)', async () => {
    const ops: Op[] = ['begin', 'produce', 'sendOffsets', 'commit', 'abort'];
    // librdkafka's abort fails only retriably (or fatally): never with "requires abort".
    const failure = fc
      .record({
        op: fc.constantFrom(...ops),
        kind: fc.constantFrom<FakeError>(ERRORS.retriable, ERRORS.abortable),
        times: fc.integer({ min: 1, max: 3 }),
      })
      .map((f) => (f.op === 'abort' ? { ...f, kind: ERRORS.retriable } : f));
    await fc.assert(
      fc.asyncProperty(
        fc.array(failure, { maxLength: 12 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 4 }),
        async (failures, maxBatch, partitions) => {
          const cluster = new FakeCluster(partitions, 25);
          for (const f of failures) cluster.fail(f.op, f.kind, f.times);
          const { deps } = setup(cluster, { maxBatchRecords: maxBatch });
          await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'stopped' });
          expect(outputValues(cluster)).toEqual(inputValues(cluster));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('survives crashes: a new instance resumes from the committed offsets without duplicates', async () => {
    const cluster = new FakeCluster(3, 30);
    for (let crash = 0; crash < 5 && !cluster.allCommitted(); crash++) {
      const { deps, stop } = setup(cluster, { maxBatchRecords: 4 });
      let n = 0;
      // A crash: the run is cut off after a few transactions, leaving one open (never committed).
      deps.transform = (b) => {
        if (++n === 3) stop.abort();
        return identity(b);
      };
      await runTxEngine(deps);
    }
    const { deps } = setup(cluster);
    await runTxEngine(deps);
    expect(outputValues(cluster)).toEqual(inputValues(cluster));
  });

  it('stops for good when fenced: no producer call after the fencing error', async () => {
    const cluster = new FakeCluster(2, 10);
    const { deps, producer } = setup(cluster);
    let fencedHook = 0;
    deps.hooks = { onFenced: () => fencedHook++ };
    let batches = 0;
    deps.transform = (b) => {
      // A newer instance initialises the same transactional id during our second batch.
      if (++batches === 2) cluster.epoch++;
      return identity(b);
    };
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'fenced' });
    expect(fencedHook).toBe(1);
    expect(producer.calls.slice(-1)).toEqual(['begin']);
    expect(cluster.output.length).toBeLessThan(20);
  });

  it('reports a fencing error that arrives on commit as fenced, not as an abort', async () => {
    const cluster = new FakeCluster(1, 5);
    cluster.fail('commit', ERRORS.fenced);
    const { deps, producer } = setup(cluster);
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'fenced' });
    expect(producer.calls).not.toContain('abort');
    expect(cluster.output).toEqual([]);
  });

  it('rejects with FatalKafkaError on a fatal, non-fencing error', async () => {
    const cluster = new FakeCluster(1, 5);
    cluster.fail('sendOffsets', ERRORS.fatal);
    const { deps } = setup(cluster);
    await expect(runTxEngine(deps)).rejects.toBeInstanceOf(FatalKafkaError);
    expect(cluster.output).toEqual([]);
  });

  it('finishes the open transaction before applying a revocation', async () => {
    const cluster = new FakeCluster(2, 10);
    const { deps, consumer, producer } = setup(cluster, { maxBatchRecords: 3 });
    const seen: string[] = [];
    const apply = consumer.applyRebalances.bind(consumer);
    consumer.applyRebalances = () => {
      seen.push(producer.calls.at(-1) ?? 'none');
      apply();
    };
    let batches = 0;
    deps.transform = (b) => {
      // The group rebalances while a batch is in flight.
      if (++batches === 2) {
        consumer.queue.push(
          { kind: 'revoke', partitions: [0, 1] },
          { kind: 'assign', partitions: [0, 1] },
        );
      }
      return identity(b);
    };
    await runTxEngine(deps);
    // The initial assignment (after init) and the revoke (after the second batch's commit).
    expect(seen).toEqual(['init', 'commit']);
    expect(outputValues(cluster)).toEqual(inputValues(cluster));
  });

  it('commits the collected batch on a graceful stop', async () => {
    const cluster = new FakeCluster(1, 10);
    const { deps, stop } = setup(cluster, { maxBatchRecords: 100 });
    deps.transform = (b) => {
      stop.abort();
      return identity(b);
    };
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'stopped' });
    expect(cluster.output).toHaveLength(10);
    expect(cluster.committed.get(0)).toBe(10);
  });

  it('retries initTransactions while it is retriable', async () => {
    const cluster = new FakeCluster(1, 3);
    cluster.fail('init', ERRORS.retriable, 3);
    const { deps, producer } = setup(cluster);
    await runTxEngine(deps);
    expect(producer.calls.filter((c) => c === 'init')).toHaveLength(4);
    expect(cluster.output).toHaveLength(3);
  });

  it('gives up endless retries when stopped, without committing', async () => {
    const cluster = new FakeCluster(1, 5);
    cluster.fail('init', ERRORS.retriable, 1000);
    const { deps, producer, stop } = setup(cluster);
    let n = 0;
    const init = producer.init.bind(producer);
    producer.init = () => {
      if (++n === 4) stop.abort();
      return init();
    };
    await expect(runTxEngine(deps)).resolves.toEqual({ reason: 'stopped' });
    expect(n).toBe(4);
    expect(cluster.output).toEqual([]);
  });
});
