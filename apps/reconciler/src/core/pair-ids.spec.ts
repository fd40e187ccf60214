import { PairIds } from './pair-ids';

describe('PairIds', () => {
  it('the empty table finds nothing', () => {
    const ids = new PairIds();
    expect([ids.size, ids.find(0, 0), ids.find(Number.NaN, 1)]).toEqual([0, -1, -1]);
  });

  it('gives dense ids in first-seen order, and the same id to the same pair', () => {
    const ids = new PairIds();
    expect([
      ids.idOf(1, 1_700_000_000_000),
      ids.idOf(2, 5),
      ids.idOf(1, 1_700_000_000_000),
    ]).toEqual([0, 1, 0]);
    expect([ids.first(1), ids.second(1), ids.size, ids.find(2, 5), ids.find(5, 2)]).toEqual([
      2, 5, 2, 1, -1,
    ]);
  });

  it('treats numbers as their decimal text would: NaN equals NaN, -0 equals 0', () => {
    const ids = new PairIds();
    const nan = ids.idOf(Number.NaN, 1);
    const zero = ids.idOf(0, 0);
    expect([ids.idOf(Number.NaN, 1), ids.idOf(-0, -0), ids.size]).toEqual([nan, zero, 2]);
  });

  it('agrees with a Map of the pairs as strings over many pairs (growth and rehashing)', () => {
    const ids = new PairIds();
    const reference = new Map<string, number>();
    let x = 12345;
    const next = (): number => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
    const got: number[] = [];
    const want: number[] = [];
    for (let i = 0; i < 50_000; i++) {
      const a = next() % 3000;
      const b = 1_700_000_000_000 + (next() % 40) * 10_000;
      const key = `${a}|${b}`;
      const id = reference.get(key) ?? reference.size;
      reference.set(key, id);
      want.push(id);
      got.push(ids.idOf(a, b));
    }
    expect(got).toEqual(want);
    expect(ids.size).toBe(reference.size);
  });
});
