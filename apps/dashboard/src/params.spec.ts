import { parseApiParams } from './params';

const NOW = Date.UTC(2026, 10, 30, 22, 0, 0);
const parse = (qs: string) => parseApiParams(new URLSearchParams(qs), NOW);

describe('parseApiParams', () => {
  it('defaults to the last 15 minutes, ending now', () => {
    const p = parse('');
    expect(p).toEqual({
      ok: true,
      params: {
        fromMs: NOW - 15 * 60_000,
        toMs: NOW,
        atMs: NOW,
        runId: undefined,
        funnelWindowMs: 1_800_000,
        limit: 10,
        activeMs: 300_000,
      },
    });
  });

  it('takes explicit instants as epoch ms or ISO 8601, a run and numbers', () => {
    const p = parse(
      'from=2026-11-30T21:00:00Z&to=1796076000000&run=gen-1.a&window=60&limit=5&active=30',
    );
    expect(p.ok && p.params).toMatchObject({
      fromMs: Date.UTC(2026, 10, 30, 21),
      toMs: 1_796_076_000_000,
      runId: 'gen-1.a',
      funnelWindowMs: 60_000,
      limit: 5,
      activeMs: 30_000,
    });
  });

  it.each([
    ['range=2h', 'range', 'one of 5m'],
    ['from=yesterday', 'from', 'epoch milliseconds'],
    ['from=1796076000000&to=1796075000000', 'from', 'before to'],
    ['from=1790000000000&to=1796076000000', 'from', 'at most 7 days'],
    ['range=1h&from=1796075000000', 'range', 'not both'],
    ["run=x'%20OR%201=1", 'run', 'run id'],
    ['window=0', 'window', 'from 1 to 86400'],
    ['limit=1e3', 'limit', 'integer'],
    ['limit=5&limit=6', 'limit', 'at most one'],
    ['sql=select', 'sql', 'no such parameter'],
    ['at=99999999999999', 'at', 'between 2000 and 2100'],
  ])('%s -> a bad %s', (qs, parameter, expected) => {
    const p = parse(qs);
    expect(p.ok).toBe(false);
    if (!p.ok) {
      expect(p.error.parameter).toBe(parameter);
      expect(p.error.expected).toContain(expected);
    }
  });
});
