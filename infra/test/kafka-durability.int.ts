/** Kafka durability on the real 3-node cluster: an acks=all write survives a SIGKILL of the partition leader. */
import { createTopic, deleteTopic, partitionLeader, produceAcked, readAll } from './support/kafka';
import {
  KAFKA_NODES,
  KafkaNode,
  brokerAddress,
  ensureStackUp,
  stack,
  uniqueName,
} from './support/stack';

describe('Kafka durability with one broker SIGKILLed', () => {
  const topic = uniqueName('infra-durability');
  let killed: KafkaNode | null = null;

  beforeAll(async () => {
    await ensureStackUp();
    await createTopic(topic, 1);
  });

  afterAll(async () => {
    // A test that kills a broker must bring it back before it ends: others share the stack.
    if (killed !== null) await stack('restart-node', String(killed));
    await deleteTopic(topic);
  });

  it('keeps acknowledged records readable through every surviving broker and accepts writes with two in sync', async () => {
    await produceAcked(topic, ['before-kill']);
    const { leader } = await partitionLeader(topic);
    const victim = KAFKA_NODES.find((n) => n === leader);
    if (victim === undefined)
      throw new Error(`partition leader ${leader} is not one of the stack's nodes`);

    await stack('kill-node', String(victim));
    killed = victim;
    const survivors = KAFKA_NODES.filter((n) => n !== victim);
    const survivorAddresses = survivors.map(brokerAddress);

    // Each survivor alone as bootstrap: the record is served by the new leader, a former follower.
    for (const node of survivors) {
      expect(await readAll(topic, { brokers: [brokerAddress(node)], expected: 1 })).toEqual([
        'before-kill',
      ]);
    }

    // acks=all completes only once the dead node has left the ISR, so these prove min.insync.replicas=2 suffices.
    await produceAcked(topic, ['after-kill-1', 'after-kill-2'], survivorAddresses);
    const after = await partitionLeader(topic, survivorAddresses);
    expect(after.leader).not.toBe(victim);
    expect([...after.isr].sort()).toEqual([...survivors].sort());

    expect(await readAll(topic, { brokers: survivorAddresses, expected: 3 })).toEqual([
      'before-kill',
      'after-kill-1',
      'after-kill-2',
    ]);
  });
});
