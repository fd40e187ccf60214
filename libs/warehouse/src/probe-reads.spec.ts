import { seqsFrom, windowCountsFrom } from './probe-reads';

describe('seqsFrom', () => {
  it('asks one table for one run from a seq on, and returns numbers', async () => {
    const calls: [string, unknown][] = [];
    const wh = {
      query: <T>(sql: string, params?: unknown): Promise<T[]> => {
        calls.push([sql, params]);
        return Promise.resolve([{ seq: 4 }, { seq: '5' }] as T[]);
      },
    };
    expect(await seqsFrom(wh, 'events_clean', 'probe-1', 4)).toEqual([4, 5]);
    expect(calls[0]?.[0]).toMatch(
      /FROM events_clean WHERE run_id = \{run:String\} AND seq >= \{from:UInt64\}/,
    );
    expect(calls[0]?.[1]).toEqual({ run: 'probe-1', from: 4 });
  });
  it('refuses a table name that is not an identifier', async () => {
    const wh = { query: () => Promise.resolve([]) };
    await expect(seqsFrom(wh, 'x; DROP', 'probe-1', 0)).rejects.toThrow();
  });
});

describe('windowCountsFrom', () => {
  it('sums the largest count per window and type of one run, from a window on', async () => {
    const calls: [string, unknown][] = [];
    const wh = {
      query: <T>(sql: string, params?: unknown): Promise<T[]> => {
        calls.push([sql, params]);
        return Promise.resolve([
          { window_start: 10_000, events: 2 },
          { window_start: '20000', events: '1' },
        ] as T[]);
      },
    };
    expect([...(await windowCountsFrom(wh, 'agg_windows', 'probe-1', 10_000))]).toEqual([
      [10_000, 2],
      [20_000, 1],
    ]);
    expect(calls[0]?.[0]).toMatch(/max\(event_count\)[\s\S]*FROM agg_windows/);
    expect(calls[0]?.[0]).toMatch(/GROUP BY window_start, event_type/);
    expect(calls[0]?.[1]).toEqual({ run: 'probe-1', from: 10_000 });
  });
});
