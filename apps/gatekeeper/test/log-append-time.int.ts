import { decodeEvent, encodeEvent, type EventType } from '@clickstream/contracts';
import { createTopics } from '@clickstream/kafka-tx';
import { sampleEvent, seqHeaders } from './fixtures';
import {
  GatekeeperProcess,
  PARTITIONS,
  clusterOptions,
  dropRunTopics,
  freshTopics,
  produce,
  readRun,
  waitForDrain,
  type RunTopics,
} from './harness';

const TYPES: EventType[] = ['page_view', 'product_view', 'add_to_cart'];

/**
 * Issue #12: ingest_time must be the broker's time, which no client can forge. The raw topic is
 * created as infra/local/topics.txt creates clickstream.raw (message.timestamp.type=LogAppendTime);
 * the producer sets a forged CreateTime one hour in the past.
 */
describe('gatekeeper binary: ingest_time on a LogAppendTime raw topic', () => {
  let topics: RunTopics;
  let gatekeeper: GatekeeperProcess | undefined;

  beforeAll(async () => {
    topics = freshTopics('log-append');
    await createTopics(clusterOptions('gk-test-admin'), [
      {
        topic: topics.raw,
        partitions: PARTITIONS,
        config: { 'message.timestamp.type': 'LogAppendTime' },
      },
      { topic: topics.valid, partitions: PARTITIONS },
      { topic: topics.dlq, partitions: PARTITIONS },
    ]);
  });

  afterAll(async () => {
    if (gatekeeper) await gatekeeper.stop(5000);
    await dropRunTopics(topics);
  });

  it('stamps ingest_time with the broker time, not the forged CreateTime', async () => {
    const runId = `run-${topics.group}`;
    const before = Date.now();
    const forged = before - 3_600_000;
    // event_time = the forged time: with a CreateTime topic these would all be on time.
    const records = Array.from({ length: 60 }, (_, seq) => ({
      topic: topics.raw,
      key: `sess-${seq % 7}`,
      value: null as Buffer | null,
      headers: seqHeaders(seq, runId),
      timestamp: forged,
      event: sampleEvent(TYPES[seq % TYPES.length] as EventType, seq, runId, forged, {
        session_id: `sess-${seq % 7}`,
        event_time: forged,
      }),
    }));
    await produce(records.map(({ event, ...r }) => ({ ...r, value: encodeEvent(event) })));
    const after = Date.now();

    gatekeeper = new GatekeeperProcess({ topics, instanceId: 'solo' });
    await waitForDrain(topics, 120_000);
    const contents = await readRun(topics);

    expect(contents.raw).toHaveLength(60);
    expect(contents.dlq).toHaveLength(0);
    const brokerTime = new Map(
      contents.raw.map((r) => [`${r.partition}:${r.offset}`, r.timestamp]),
    );
    for (const t of brokerTime.values()) {
      expect(t).toBeGreaterThanOrEqual(before - 1000); // broker clock = this machine's clock
      expect(t).toBeLessThanOrEqual(after + 1000);
    }
    const ingestTimes = contents.valid.map((r) => {
      const decoded = decodeEvent(r.value, { ingestTime: r.timestamp });
      if (!decoded.ok) throw new Error(`valid record does not decode: ${decoded.detail}`);
      return decoded.event.ingest_time;
    });
    expect(ingestTimes).toHaveLength(60);
    const rawTimes = [...brokerTime.values()].sort((a, b) => a - b);
    expect([...ingestTimes].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(rawTimes);
    expect(ingestTimes.filter((t) => t === forged)).toEqual([]);

    await expect(gatekeeper.stop()).resolves.toEqual({ code: 0, signal: null });
    gatekeeper = undefined;
  });
});
