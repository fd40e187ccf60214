import { stopReason } from './ladder';

const exact = { verdict: 'exact', layers: { 'clickstream.raw': 'exact' } } as never;

describe('stopReason: when the load ladder stops', () => {
  it('goes on while valid and clean are within the SLO, whatever the windows layer shows', () => {
    expect(
      stopReason({
        reconcile: exact,
        freshness: {
          valid: { p50: 1, p99: 2 },
          clean: { p50: 5, p99: 9.9 },
          windows: { p50: 11, p99: 15 },
        },
      }),
    ).toBeNull();
  });

  it('stops when valid or clean is over the SLO or has no freshness at all', () => {
    expect(
      stopReason({
        reconcile: exact,
        freshness: { valid: { p50: 1, p99: 2 }, clean: { p50: 8, p99: 14.2 } },
      }),
    ).toBe('behind: clean p99 14.2 s (SLO 10 s)');
    expect(stopReason({ reconcile: exact, freshness: { clean: { p50: 1, p99: 2 } } })).toBe(
      'behind: valid p99 none s (SLO 10 s)',
    );
  });

  it('stops when the rung is not exact or was not reconciled', () => {
    const inexact = {
      verdict: 'inexact',
      layers: { 'clickstream.raw': 'exact', 'agg.windows': 'inexact' },
    } as never;
    const fresh = { valid: { p50: 1, p99: 2 }, clean: { p50: 1, p99: 2 } };
    expect(stopReason({ reconcile: inexact, freshness: fresh })).toBe(
      'not exact: agg.windows inexact',
    );
    expect(stopReason({ reconcile: null, freshness: fresh })).toBe('no reconciliation report');
  });
});
