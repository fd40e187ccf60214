/** Kafka with one node cut off by a network partition (stack.sh partition-node, nftables), then healed. */
import {
  createTopic,
  deleteTopic,
  partitionLeader,
  pollUntil,
  produceAcked,
  readAll,
} from './support/kafka';
import {
  KAFKA_NODES,
  KafkaNode,
  brokerAddress,
  ensureStackUp,
  stack,
  uniqueName,
} from './support/stack';

describe('Kafka with the partition leader network-partitioned', () => {
  const topic = uniqueName('infra-partition');
  let partitioned: KafkaNode | null = null;

  beforeAll(async () => {
    await ensureStackUp();
    await createTopic(topic, 1);
  });

  afterAll(async () => {
    // Others share the stack: never leave a node cut off.
    if (partitioned !== null) await stack('heal-node', String(partitioned));
    await deleteTopic(topic);
  });

  it('moves leadership to the majority side, keeps acks=all writes going, and takes the node back after healing', async () => {
    await produceAcked(topic, ['before']);
    const { leader } = await partitionLeader(topic);
    const victim = KAFKA_NODES.find((n) => n === leader);
    if (victim === undefined)
      throw new Error(`partition leader ${leader} is not one of the stack's nodes`);

    await stack('partition-node', String(victim));
    partitioned = victim;
    const survivors = KAFKA_NODES.filter((n) => n !== victim);
    const survivorAddresses = survivors.map(brokerAddress);

    // The cut-off leader cannot reach the controller quorum, so it is fenced and a survivor leads.
    await produceAcked(topic, ['during-1', 'during-2'], survivorAddresses);
    const during = await partitionLeader(topic, survivorAddresses);
    expect(during.leader).not.toBe(victim);
    expect([...during.isr].sort()).toEqual([...survivors].sort());

    await stack('heal-node', String(victim));
    partitioned = null;
    const healed = await pollUntil(
      () => partitionLeader(topic),
      (m) => m.isr.length === 3,
      180_000,
    );
    expect([...healed.isr].sort()).toEqual([...KAFKA_NODES]);
    expect(await readAll(topic, { expected: 3 })).toEqual(['before', 'during-1', 'during-2']);
  });
});
