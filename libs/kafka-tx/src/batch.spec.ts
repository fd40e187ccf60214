import { backoffMs, nextOffsets, rewindOffsets } from './batch';
import type { InRecord } from './types';

const rec = (topic: string, partition: number, offset: number): InRecord => ({
  topic,
  partition,
  offset,
  key: null,
  value: null,
  headers: {},
  timestamp: 0,
});

describe('batch offsets', () => {
  it('is empty for an empty batch', () => {
    expect(nextOffsets([])).toEqual([]);
    expect(rewindOffsets([])).toEqual([]);
  });

  it('commits last + 1 and rewinds to the first offset, per topic and partition', () => {
    const b = [rec('b', 0, 7), rec('a', 1, 3), rec('a', 1, 4), rec('b', 0, 5), rec('a', 0, 9)];
    expect(nextOffsets(b)).toEqual([
      { topic: 'a', partition: 0, offset: 10 },
      { topic: 'a', partition: 1, offset: 5 },
      { topic: 'b', partition: 0, offset: 8 },
    ]);
    expect(rewindOffsets(b)).toEqual([
      { topic: 'a', partition: 0, offset: 9 },
      { topic: 'a', partition: 1, offset: 3 },
      { topic: 'b', partition: 0, offset: 5 },
    ]);
  });

  it('backs off exponentially up to the cap', () => {
    expect([1, 2, 3, 4, 10].map((a) => backoffMs(a, 100, 500))).toEqual([100, 200, 400, 500, 500]);
  });
});
