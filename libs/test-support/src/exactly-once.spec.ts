import { exactlyOnce, exactlyOnceCounts, isExact } from './exactly-once';

describe('exactlyOnce', () => {
  it('is exact for the empty case and for every key once', () => {
    expect(isExact(exactlyOnce([], []))).toBe(true);
    expect(isExact(exactlyOnce([1, 2, 3], [3, 1, 2]))).toBe(true);
  });

  it('names what is missing, duplicated and unexpected', () => {
    const e = exactlyOnce(['a', 'b', 'c'], ['a', 'a', 'c', 'x']);
    expect(e).toEqual({ missing: ['b'], duplicated: ['a'], unexpected: ['x'] });
    expect(isExact(e)).toBe(false);
  });

  it('keeps at most the given number of examples', () => {
    expect(exactlyOnce([1, 2, 3, 4], [], 2).missing).toEqual([1, 2]);
  });

  it('works from counts, where a zero count is absent', () => {
    const e = exactlyOnceCounts(
      [7, 8],
      new Map([
        [7, 2],
        [8, 0],
        [9, 1],
      ]),
    );
    expect(e).toEqual({ missing: [8], duplicated: [7], unexpected: [9] });
  });
});
