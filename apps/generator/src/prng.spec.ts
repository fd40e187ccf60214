import { Prng, hashString } from './prng';

jest.setTimeout(60_000);

describe('Prng', () => {
  it('replays the same stream for the same seed and differs for another', () => {
    const a = new Prng(1);
    const b = new Prng(1);
    const c = new Prng(2);
    const xs = Array.from({ length: 100 }, () => a.nextU32());
    expect(Array.from({ length: 100 }, () => b.nextU32())).toEqual(xs);
    expect(Array.from({ length: 100 }, () => c.nextU32())).not.toEqual(xs);
  });

  it('keeps labelled streams independent and tied to the run id', () => {
    expect(Prng.stream(1, 'run', 'a').nextU32()).not.toBe(Prng.stream(1, 'run', 'b').nextU32());
    expect(Prng.stream(1, 'run-1', 'a').nextU32()).not.toBe(Prng.stream(1, 'run-2', 'a').nextU32());
    expect(hashString('x')).toBe(hashString('x'));
  });

  it('makes lowercase RFC 4122 version-4 UUIDs, all distinct', () => {
    const p = new Prng(9);
    const ids = Array.from({ length: 10_000 }, () => p.uuidV4());
    const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(ids.filter((id) => !v4.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws integers within bounds, covering them roughly uniformly', () => {
    const p = new Prng(3);
    const counts = new Array<number>(6).fill(0);
    let outside = 0;
    for (let i = 0; i < 60_000; i++) {
      const v = p.int(1, 6);
      if (v < 1 || v > 6 || !Number.isInteger(v)) outside++;
      else counts[v - 1]!++;
    }
    expect(outside).toBe(0);
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
  });

  it('picks by weight', () => {
    const p = new Prng(4);
    let a = 0;
    for (let i = 0; i < 20_000; i++)
      if (
        p.weighted([
          ['a', 3],
          ['b', 1],
        ] as const) === 'a'
      )
        a++;
    expect(Math.abs(a / 20_000 - 0.75)).toBeLessThan(0.02);
  });
});
