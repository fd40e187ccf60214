import { FakeClock, FakeCluster, FakeConsumer, silentLogger } from '../test/fake-kafka';
import { collectBatch, rewindBatch } from './tx-consumer';
import { FatalKafkaError } from './tx-retry';

function setup(partitions = 2, perPartition = 10) {
  const cluster = new FakeCluster(partitions, perPartition);
  const clock = new FakeClock();
  const consumer = new FakeConsumer(cluster, clock);
  consumer.applyRebalances();
  return { cluster, clock, consumer };
}

describe('collectBatch', () => {
  it('fills a batch up to its record limit', async () => {
    const { clock, consumer } = setup();
    const batch = await collectBatch({
      consumer,
      clock,
      maxBatchRecords: 7,
      maxBatchMs: 50,
      stopped: () => false,
    });
    expect(batch).toHaveLength(7);
  });

  it('is empty when nothing arrives, on a stop, or while a rebalance waits', async () => {
    const idle = setup(1, 0);
    expect(
      await collectBatch({ ...idle, maxBatchRecords: 7, maxBatchMs: 50, stopped: () => false }),
    ).toEqual([]);
    const stopping = setup();
    expect(
      await collectBatch({ ...stopping, maxBatchRecords: 7, maxBatchMs: 50, stopped: () => true }),
    ).toEqual([]);
    const rebalancing = setup();
    rebalancing.consumer.queue.push({ kind: 'revoke', partitions: [0] });
    expect(
      await collectBatch({
        ...rebalancing,
        maxBatchRecords: 7,
        maxBatchMs: 50,
        stopped: () => false,
      }),
    ).toEqual([]);
  });

  it('returns what arrived once the input runs dry', async () => {
    const { clock, consumer } = setup(1, 3);
    expect(
      await collectBatch({
        consumer,
        clock,
        maxBatchRecords: 7,
        maxBatchMs: 50,
        stopped: () => false,
      }),
    ).toHaveLength(3);
  });
});

describe('rewindBatch', () => {
  it('moves the positions back to the batch start, or to the committed offsets', async () => {
    const { cluster, clock, consumer } = setup(1, 10);
    const batch = await collectBatch({
      consumer,
      clock,
      maxBatchRecords: 5,
      maxBatchMs: 50,
      stopped: () => false,
    });
    await rewindBatch({ consumer, clock, logger: silentLogger }, batch);
    expect(consumer.positions.get(0)).toBe(0);
    await collectBatch({
      consumer,
      clock,
      maxBatchRecords: 5,
      maxBatchMs: 50,
      stopped: () => false,
    });
    cluster.committed.set(0, 3);
    await rewindBatch({ consumer, clock, logger: silentLogger }, batch, true);
    expect(consumer.positions.get(0)).toBe(3);
  });

  it('gives up loudly after five failed seeks', async () => {
    const { clock, consumer } = setup(1, 10);
    const batch = await collectBatch({
      consumer,
      clock,
      maxBatchRecords: 5,
      maxBatchMs: 50,
      stopped: () => false,
    });
    consumer.seek = () => Promise.reject(new Error('no'));
    await expect(
      rewindBatch({ consumer, clock, logger: silentLogger }, batch),
    ).rejects.toBeInstanceOf(FatalKafkaError);
  });
});
