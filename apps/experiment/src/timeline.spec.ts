import {
  ackedPerSecond,
  backUnderSlo,
  maxAge,
  phaseQuantiles,
  quantileBetween,
  writePause,
  type TimelineRow,
} from './timeline';

const buckets = (pairs: [number, number][]) => new Map(pairs);

describe('ackedPerSecond', () => {
  it('counts sends per second of the window and ignores the rest', () => {
    expect(ackedPerSecond([1000, 1500, 2999, 3000, 9000, 500], 1, 4)).toEqual([2, 1, 1]);
  });
  it('is empty for an empty window', () => {
    expect(ackedPerSecond([1000], 5, 5)).toEqual([]);
  });
});

describe('writePause', () => {
  it('is null with fewer than two sends', () => {
    expect(writePause([])).toBeNull();
    expect(writePause([5])).toBeNull();
  });
  it('finds the longest gap whatever the order of the sends', () => {
    expect(writePause([100, 4000, 200, 300, 4100])).toEqual({
      gapMs: 3700,
      fromMs: 300,
      toMs: 4000,
    });
  });
});

describe('quantileBetween', () => {
  const after = buckets([
    [1, 10],
    [2, 30],
    [5, 40],
    [Infinity, 40],
  ]);
  it('interpolates inside the bucket, as histogram_quantile does', () => {
    expect(quantileBetween(0.5, undefined, after)).toBeCloseTo(1.5);
    expect(quantileBetween(0.25, undefined, after)).toBeCloseTo(1);
  });
  it('uses only the observations between the two snapshots', () => {
    const before = buckets([
      [1, 10],
      [2, 10],
      [5, 10],
      [Infinity, 10],
    ]);
    // 20 new observations in (1, 2], 10 in (2, 5]
    expect(quantileBetween(0.99, before, after)).toBeCloseTo(2 + (3 * (29.7 - 20)) / 10);
  });
  it('is null when nothing was observed', () => {
    expect(quantileBetween(0.5, after, after)).toBeNull();
  });
  it('answers the last finite bound for observations beyond it', () => {
    expect(
      quantileBetween(
        0.99,
        undefined,
        buckets([
          [1, 0],
          [Infinity, 4],
        ]),
      ),
    ).toBe(1);
  });
});

describe('phaseQuantiles', () => {
  it('reads each phase between the snapshots at its ends', () => {
    const series = new Map([
      [
        100,
        buckets([
          [1, 0],
          [10, 0],
          [Infinity, 0],
        ]),
      ],
      [
        110,
        buckets([
          [1, 4],
          [10, 4],
          [Infinity, 4],
        ]),
      ],
      [
        120,
        buckets([
          [1, 4],
          [10, 8],
          [Infinity, 8],
        ]),
      ],
    ]);
    const q = phaseQuantiles(series, [
      { name: 'before', fromS: 100, toS: 110 },
      { name: 'during', fromS: 110, toS: 120 },
      { name: 'after', fromS: 120, toS: 120 },
    ]);
    expect(q.before.p50).toBeCloseTo(0.5);
    expect(q.during.p50).toBeCloseTo(5.5);
    expect(q.after).toEqual({ p50: null, p99: null });
  });
});

const row = (t: number, valid: number | null, clean: number | null): TimelineRow => ({
  t,
  acked: 0,
  age_s: { valid, clean },
});

describe('backUnderSlo', () => {
  it('is 0 when the ages never left the SLO', () => {
    const rows = Array.from({ length: 20 }, (_, i) => row(100 + i, 3, 4));
    expect(backUnderSlo(rows, 100, 10, 15)).toBe(0);
  });
  it('needs every layer under the SLO for the whole hold', () => {
    const rows = [
      ...Array.from({ length: 5 }, (_, i) => row(100 + i, 30, 3)),
      ...Array.from({ length: 5 }, (_, i) => row(105 + i, 3, 3)),
      row(110, 3, 12),
      ...Array.from({ length: 20 }, (_, i) => row(111 + i, 3, 3)),
    ];
    expect(backUnderSlo(rows, 100, 10, 15)).toBe(11);
  });
  it('is null when never back, and a missing sample breaks a streak', () => {
    expect(backUnderSlo([row(100, 50, 50)], 100, 10, 15)).toBeNull();
    const gap = [...Array.from({ length: 10 }, (_, i) => row(100 + i, 1, 1)), row(120, 1, null)];
    expect(backUnderSlo(gap, 100, 10, 5)).toBe(0);
    expect(backUnderSlo(gap, 100, 10, 15)).toBeNull();
  });
});

describe('maxAge', () => {
  it('names the layer and second of the largest age in the window', () => {
    expect(maxAge([row(1, 5, 9), row(2, 20, 3), row(3, 99, 99)], 1, 3)).toEqual({
      ageS: 20,
      layer: 'valid',
      t: 2,
    });
    expect(maxAge([], 0, 10)).toBeNull();
  });
});

describe('the windows layer', () => {
  it('is on the timeline but judged by neither backUnderSlo nor maxAge (it is slower by design)', () => {
    const withWindows = (t: number, windows: number): TimelineRow => {
      const r = row(t, 3, 4);
      return { ...r, age_s: { ...r.age_s, windows } };
    };
    const rows = Array.from({ length: 20 }, (_, i) => withWindows(100 + i, 30));
    expect(backUnderSlo(rows, 100, 10, 15)).toBe(0);
    expect(maxAge(rows, 100, 120)).toEqual({ ageS: 4, layer: 'clean', t: 100 });
  });
});
