import {
  committedLag,
  createIdempotentProducer,
  createTopics,
  topicExists,
  deleteRecordsBefore,
  deleteTopics,
  endOffsets,
  readRanges,
  readTopic,
  trimmedBeforeRead,
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
    expect(await topicExists(o, topic)).toBe(true);
    expect(await topicExists(o, `${topic}.never-created`)).toBe(false);
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

  it('keeps the call order of concurrent sends in a partition (a later batch never lands inside an earlier one)', async () => {
    const t = uniqueName('client-call-order');
    await createTopics(o, [{ topic: t, partitions: 1 }]);
    try {
      const p = await createIdempotentProducer(o);
      try {
        // Four batches handed over without awaiting each other, as the generator does when behind.
        const batches = [0, 1, 2, 3].map((b) =>
          Array.from({ length: 250 }, (_, i) => ({
            topic: t,
            partition: 0,
            key: 'k',
            value: Buffer.from(String(b * 250 + i)),
          })),
        );
        const reports = await Promise.all(batches.map((b) => p.send(b)));
        expect(reports.flat().every((r) => r.ok)).toBe(true);
      } finally {
        await p.close();
      }
      const recs = await readTopic({ ...o, topic: t });
      expect(recs.map((r) => Number(r.value?.toString()))).toEqual(
        Array.from({ length: 1000 }, (_, i) => i),
      );
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

  it('reads from a time: every record stamped at or after it, none of a partition stamped only before it', async () => {
    const t = uniqueName('client-from-time');
    await createTopics(o, [{ topic: t, partitions: 3 }]);
    try {
      const base = Date.now() - 3_600_000;
      const at = (partition: number, minutes: number, value: string) => ({
        topic: t,
        partition,
        key: null,
        value: Buffer.from(value),
        timestamp: base + minutes * 60_000,
      });
      const p = await createIdempotentProducer(o);
      try {
        const reports = await p.send([
          at(0, 0, 'p0-old'),
          at(0, 1, 'p0-old2'),
          at(0, 10, 'p0-new'),
          // CreateTime is the producer's: an older stamp after a newer one is still read.
          at(0, 2, 'p0-after-new-but-older'),
          at(1, 20, 'p1-new'),
          at(2, 0, 'p2-old'),
        ]);
        expect(reports.every((r) => r.ok)).toBe(true);
      } finally {
        await p.close();
      }
      const from = base + 5 * 60_000;
      const recs = await readTopic({ ...o, topic: t, fromTimeMs: from });
      expect(recs.map((r) => String(r.value))).toEqual([
        'p0-new',
        'p0-after-new-but-older',
        'p1-new',
      ]);
      expect(recs.map((r) => r.offset)).toEqual([2, 3, 0]);
      // A time past every record reads nothing; 0 (or none) reads from the log start.
      await expect(readTopic({ ...o, topic: t, fromTimeMs: base + 3_600_000 })).resolves.toEqual(
        [],
      );
      expect(await readTopic({ ...o, topic: t, fromTimeMs: 0 })).toHaveLength(6);
    } finally {
      await deleteTopics(o, [t]);
    }
  });

  it('tells which partitions had records deleted before where their read begins', async () => {
    const t = uniqueName('client-trimmed');
    await createTopics(o, [{ topic: t, partitions: 4 }]);
    try {
      const base = Date.now() - 3_600_000;
      const at = (partition: number, minutes: number) => ({
        topic: t,
        partition,
        key: null,
        value: Buffer.from(`${partition}@${minutes}`),
        timestamp: base + minutes * 60_000,
      });
      const p = await createIdempotentProducer(o);
      try {
        const reports = await p.send([
          ...[0, 10, 11].map((m) => at(0, m)),
          ...[0, 1, 20].map((m) => at(1, m)),
          at(2, 15),
          at(3, 12),
        ]);
        expect(reports.every((r) => r.ok)).toBe(true);
      } finally {
        await p.close();
      }
      // Partitions 0-2 lose their first record; 3 keeps all.
      await deleteRecordsBefore(o, t, { 0: 1, 1: 1, 2: 1 });
      const fromFive = await readRanges({ ...o, topic: t, fromTimeMs: base + 5 * 60_000 });
      expect(Object.fromEntries(fromFive.logStart)).toEqual({ 0: 1, 1: 1, 2: 1, 3: 0 });
      // 0: the first record kept is past the time, so the deleted one may have been too; 1: a
      // record kept is before the time, so nothing deleted was wanted; 2: emptied; 3: nothing deleted.
      expect(Object.fromEntries(fromFive.begin)).toEqual({ 0: 1, 1: 2, 2: 1, 3: 0 });
      expect(trimmedBeforeRead(fromFive)).toEqual([
        { partition: 0, logStart: 1 },
        { partition: 2, logStart: 1 },
      ]);
      // From the log start every deleted record was wanted.
      expect(trimmedBeforeRead(await readRanges({ ...o, topic: t }))).toEqual([
        { partition: 0, logStart: 1 },
        { partition: 1, logStart: 1 },
        { partition: 2, logStart: 1 },
      ]);
    } finally {
      await deleteTopics(o, [t]);
    }
  });

  it('reads an empty topic as empty and counts the lag of a group that never committed', async () => {
    await expect(readTopic({ ...o, topic: empty })).resolves.toEqual([]);
    expect(await committedLag(o, uniqueName('nobody'), topic)).toBe(602);
    expect(await committedLag(o, uniqueName('nobody'), empty)).toBe(0);
  });
});
