/** Kafka transactions on the real cluster: aborted records are hidden from read_committed consumers only. */
import { createTopic, deleteTopic, kafka, readAll } from './support/kafka';
import { ensureStackUp, uniqueName } from './support/stack';

describe('Kafka transactions', () => {
  const topic = uniqueName('infra-tx');

  beforeAll(async () => {
    await ensureStackUp();
    await createTopic(topic, 1);
    const producer = kafka().producer({
      kafkaJS: { transactionalId: uniqueName('infra-tx-id'), idempotent: true, acks: -1 },
    });
    await producer.connect();
    try {
      const aborted = await producer.transaction();
      await aborted.send({
        topic,
        messages: [{ value: 'aborted-1' }, { value: 'aborted-2' }, { value: 'aborted-3' }],
      });
      await aborted.abort();
      const committed = await producer.transaction();
      await committed.send({
        topic,
        messages: [{ value: 'committed-1' }, { value: 'committed-2' }],
      });
      await committed.commit();
    } finally {
      await producer.disconnect();
    }
  });

  afterAll(async () => {
    await deleteTopic(topic);
  });

  it('hides an aborted transaction from a read_committed consumer', async () => {
    expect(await readAll(topic, { expected: 2 })).toEqual(['committed-1', 'committed-2']);
  });

  it('shows the aborted records to a read_uncommitted consumer', async () => {
    expect(await readAll(topic, { expected: 5, readUncommitted: true })).toEqual([
      'aborted-1',
      'aborted-2',
      'aborted-3',
      'committed-1',
      'committed-2',
    ]);
  });
});
