import {
  committedLag,
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  endOffsets,
  readTopic,
} from '../src';
import { clientOptions, seed, uniqueName } from './helpers';

describe('topics, producer, readTopic, offsets', () => {
  const o = clientOptions('client');
  const topic = uniqueName('client');
  const empty = uniqueName('client-empty');

  beforeAll(async () => {
    await createTopics(o, [
      { topic, partitions: 3 },
      { topic: empty, partitions: 2, config: { 'retention.ms': '3600000' } },
    ]);
  });

  afterAll(async () => {
    await deleteTopics(o, [topic, empty]);
  });

  it('creates topics idempotently', async () => {
    await expect(createTopics(o, [{ topic, partitions: 3 }])).resolves.toBeUndefined();
    expect([...(await endOffsets(o, topic)).keys()].sort()).toEqual([0, 1, 2]);
  });

  it('reports every record: offsets for delivered ones, an error value for a refused one', async () => {
    const p = await createIdempotentProducer(o);
    try {
      const reports = await p.send([
        { topic, partition: 1, key: 'a', value: Buffer.from('x0'), headers: { h: 'v' } },
        { topic, partition: 99, key: 'b', value: Buffer.from('bad') },
        { topic, partition: 1, key: 'c', value: Buffer.from('x1') },
      ]);
      expect(reports.map((r) => r.ok)).toEqual([true, false, true]);
      expect(reports[1]).toMatchObject({ ok: false, offset: null });
      expect(reports[1]?.error).toEqual(expect.any(String));
      expect(reports[2]?.offset).toBe((reports[0]?.offset ?? NaN) + 1);
      await p.flush();
    } finally {
      await p.close();
    }
  });

  it('keeps an empty value and key apart from a null one, written and read through the real client', async () => {
    const t = uniqueName('client-empty-null');
    await createTopics(o, [{ topic: t, partitions: 1 }]);
    try {
      const p = await createIdempotentProducer(o);
      try {
        const reports = await p.send([
          { topic: t, partition: 0, key: Buffer.alloc(0), value: Buffer.alloc(0) },
          { topic: t, partition: 0, key: null, value: null },
          { topic: t, partition: 0, key: '', value: Buffer.from('x') },
        ]);
        expect(reports.map((r) => r.ok)).toEqual([true, true, true]);
      } finally {
        await p.close();
      }
      const recs = await readTopic({ ...o, topic: t });
      expect(recs.map((r) => [r.key, r.value])).toEqual([
        [Buffer.alloc(0), Buffer.alloc(0)],
        [null, null],
        [Buffer.alloc(0), Buffer.from('x')],
      ]);
    } finally {
      await deleteTopics(o, [t]);
    }
  });

  it('reads a topic from the beginning to the end offsets, partition by partition, in offset order', async () => {
    expect(await seed(o, topic, 0, 600)).toBe(600);
    const ends = await endOffsets(o, topic);
    const total = [...ends.values()].reduce((a, b) => a + b, 0);
    const recs = await readTopic({ ...o, topic });
    expect(recs).toHaveLength(total);
    expect(total).toBe(602);
    for (let i = 1; i < recs.length; i++) {
      const a = recs[i - 1]!;
      const b = recs[i]!;
      expect(
        a.partition < b.partition || (a.partition === b.partition && a.offset + 1 === b.offset),
      ).toBe(true);
    }
    const x0 = recs.find((r) => String(r.value) === 'x0');
    expect(x0?.headers.h?.toString()).toBe('v');
    expect(x0?.key?.toString()).toBe('a');
  });

  it('reads an empty topic as empty and counts the lag of a group that never committed', async () => {
    await expect(readTopic({ ...o, topic: empty })).resolves.toEqual([]);
    expect(await committedLag(o, uniqueName('nobody'), topic)).toBe(602);
    expect(await committedLag(o, uniqueName('nobody'), empty)).toBe(0);
  });
});
