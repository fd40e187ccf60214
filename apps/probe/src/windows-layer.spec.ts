import { WindowRanks, windowStartOf } from './windows-layer';

describe('WindowRanks', () => {
  it('ranks events by send order within their 10 s window (floor, like the windows job)', () => {
    expect(windowStartOf(10_000)).toBe(10_000);
    expect(windowStartOf(19_999)).toBe(10_000);
    expect(windowStartOf(20_000)).toBe(20_000);
    const r = new WindowRanks();
    r.add(0, 10_100);
    r.add(1, 15_100);
    r.add(2, 20_100);
    expect(r.windowOf(1)).toBe(10_000);
    // One of two counted in [10000, 20000): the first sent; none yet in [20000, 30000).
    expect(r.covered(new Map([[10_000, 1]]))).toEqual([0]);
    expect(
      r
        .covered(
          new Map([
            [10_000, 2],
            [20_000, 1],
          ]),
        )
        .sort(),
    ).toEqual([0, 1, 2]);
    // A count for another window, or none, shows nothing.
    expect(r.covered(new Map([[30_000, 5]]))).toEqual([]);
  });

  it('forgets what is no longer watched but keeps counting sends into the current window', () => {
    const r = new WindowRanks();
    r.add(0, 10_100);
    r.add(1, 15_100);
    r.forgetBelow(1);
    expect(r.windowOf(0)).toBeUndefined();
    r.add(2, 17_000); // third send into [10000, 20000): rank 3
    expect(r.covered(new Map([[10_000, 2]]))).toEqual([1]);
    expect(r.covered(new Map([[10_000, 3]])).sort()).toEqual([1, 2]);
  });

  it('when everything is seen, keeps only the newest window count', () => {
    const r = new WindowRanks();
    r.add(0, 10_100);
    r.add(1, 20_100);
    r.forgetBelow(2); // both seen, nothing watched
    r.add(2, 25_000); // second send into [20000, 30000)
    expect(r.covered(new Map([[20_000, 1]]))).toEqual([]);
    expect(r.covered(new Map([[20_000, 2]]))).toEqual([2]);
  });
});
