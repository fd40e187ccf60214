import { trimmedBeforeRead } from './offsets';

const ranges = (
  begin: Record<number, number>,
  logStart: Record<number, number>,
): Parameters<typeof trimmedBeforeRead>[0] => ({
  begin: new Map(Object.entries(begin).map(([p, o]) => [Number(p), o])),
  end: new Map(Object.keys(begin).map((p) => [Number(p), 100])),
  logStart: new Map(Object.entries(logStart).map(([p, o]) => [Number(p), o])),
});

describe('trimmedBeforeRead', () => {
  it('names the partitions whose read begins at a log start that deletions moved, in partition order', () => {
    expect(
      trimmedBeforeRead(ranges({ 2: 40, 0: 7, 1: 9, 3: 0 }, { 2: 40, 0: 7, 1: 5, 3: 0 })),
    ).toEqual([
      { partition: 0, logStart: 7 },
      { partition: 2, logStart: 40 },
    ]);
  });

  it('names none when nothing was deleted or every read begins after its log start', () => {
    expect(trimmedBeforeRead(ranges({ 0: 0, 1: 0 }, { 0: 0, 1: 0 }))).toEqual([]);
    expect(trimmedBeforeRead(ranges({ 0: 12, 1: 3 }, { 0: 11, 1: 2 }))).toEqual([]);
  });
});
