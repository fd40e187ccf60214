import { sessionKey, windowKey } from '@clickstream/contracts';
import { AggregateKeys, formatKey, isKeyOf } from './aggregate-keys';

describe('AggregateKeys', () => {
  it('an empty key space has no ids', () => {
    expect(new AggregateKeys('windows').size).toBe(0);
  });

  it('formats keys as the contract does', () => {
    expect(formatKey('windows', 'r', 'page_view', 10_000)).toBe(
      windowKey({ run_id: 'r', window_start: 10_000, event_type: 'page_view' }),
    );
    expect(formatKey('sessions', 'r', 's1', 5)).toBe(
      sessionKey({ run_id: 'r', session_id: 's1', session_start: 5 }),
    );
  });

  it('gives two keys one id exactly when their key strings are equal', () => {
    const runs = ['r', 'r|1', 'probe-x', ''];
    const texts = ['a', 'a|1', '1|a', '', 'page_view', 'ä'];
    const times = [0, -0, 1, 10, 1_700_000_000_000, -5, Number.NaN];
    for (const kind of ['windows', 'sessions'] as const) {
      const keys = new AggregateKeys(kind);
      const byString = new Map<string, number>();
      for (const run of runs)
        for (const text of texts)
          for (const time of times) {
            const key = formatKey(kind, run, text, time);
            const id = keys.idOf(run, text, time);
            if (!byString.has(key)) byString.set(key, id);
            expect(id).toBe(byString.get(key));
            expect(keys.keyOf(id)).toBe(key);
          }
      expect(keys.size).toBe(byString.size);
    }
  });

  it('isKeyOf says what comparing with the key string says', () => {
    const parts: [string, string, number][] = [
      ['r', 'a', 1],
      ['r', 'a|1', 2],
      ['r|a', '1', 2],
      ['r', '', 0],
      ['r', 'a', 12],
    ];
    const keys = ['r|1|a', 'r|a|1', 'r|a|1|2', 'r|2|a|1', 'r||0', 'r|0|', 'r|a|12', 'x|1|a', ''];
    for (const kind of ['windows', 'sessions'] as const)
      for (const [run, text, time] of parts)
        for (const key of keys)
          expect(isKeyOf(key, kind, run, text, time)).toBe(
            key === formatKey(kind, run, text, time),
          );
  });
});
