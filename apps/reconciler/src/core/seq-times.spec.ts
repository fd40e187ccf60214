import { denseSizeFor, SeqTimes } from './seq-times';

describe('SeqTimes', () => {
  it('the empty one holds no seq', () => {
    expect(denseSizeFor([])).toBe(0);
    const t = new SeqTimes();
    expect([t.size, t.has(0), t.get(0), t.get(-1), [...t]]).toEqual([
      0,
      false,
      undefined,
      undefined,
      [],
    ]);
  });

  it('keeps the first time of a seq, never NaN', () => {
    const t = new SeqTimes(10);
    expect([t.setFirst(3, 30), t.setFirst(3, 31), t.setFirst(4, Number.NaN)]).toEqual([
      true,
      false,
      false,
    ]);
    expect([t.get(3), t.has(4), t.size]).toEqual([30, false, 1]);
  });

  it('sizes the array from the seqs, never far beyond how many there are', () => {
    expect(denseSizeFor([3, 0, -1, 7])).toBe(8);
    expect(denseSizeFor([0, 2 ** 40, 0.5])).toBe(4 * 3 + 1024);
  });

  it('holds seqs the array does not (negative, fractional, huge) in a Map, and iterates them all', () => {
    const t = new SeqTimes(denseSizeFor([2 ** 40, -1, 0.5, 5000, 0]));
    for (const [seq, time] of [
      [2 ** 40, 1],
      [-1, 2],
      [0.5, 3],
      [5000, 4],
      [0, 0],
    ] as const)
      t.setFirst(seq, time);
    expect([t.size, t.get(2 ** 40), t.get(-1), t.get(0.5), t.get(5000), t.get(0)]).toEqual([
      5, 1, 2, 3, 4, 0,
    ]);
    expect(new Map(t)).toEqual(
      new Map([
        [0, 0],
        [5000, 4],
        [2 ** 40, 1],
        [-1, 2],
        [0.5, 3],
      ]),
    );
  });
});
