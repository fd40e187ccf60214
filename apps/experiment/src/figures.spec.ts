import { buildTimeline, computeFigures, phasesOf, summariseReport } from './figures';

describe('buildTimeline', () => {
  it('has one row per second with acked sends and every layer (null when unsampled)', () => {
    const ages = new Map([
      ['valid', new Map([[10, 2]])],
      ['clean', new Map<number, number>()],
    ]);
    expect(buildTimeline([10_100, 10_200, 11_000], ages, 10, 12)).toEqual([
      { t: 10, acked: 2, age_s: { valid: 2, clean: null } },
      { t: 11, acked: 1, age_s: { valid: null, clean: null } },
    ]);
  });
});

describe('phasesOf', () => {
  it('ends "during" at recovery (at least 30 s after the fault), or at the end of the load when freshness never recovered', () => {
    expect(phasesOf(0, 50, 51, 51, 200)[1]).toEqual({ name: 'during', fromS: 50, toS: 80 });
    expect(phasesOf(0, 50, 60, 95, 200).map((p) => [p.name, p.fromS, p.toS])).toEqual([
      ['before', 10, 50],
      ['during', 50, 95],
      ['after', 95, 200],
    ]);
    expect(phasesOf(0, 50, 60, null, 200)[1]).toEqual({ name: 'during', fromS: 50, toS: 200 });
  });
});

describe('computeFigures', () => {
  it('computes the pause, recovery and verdicts of a run', () => {
    const timeline = Array.from({ length: 100 }, (_, i) => ({
      t: i,
      acked: 1,
      age_s: { clean: i >= 40 && i < 60 ? 30 : 2 },
    }));
    const acked = [
      ...Array.from({ length: 40 }, (_, i) => i * 1000),
      ...Array.from({ length: 50 }, (_, i) => 50_000 + i * 1000),
    ];
    const f = computeFigures({
      ackedMs: acked,
      timeline,
      histograms: new Map(),
      loadStartS: 0,
      loadEndS: 100,
      faultAtMs: 40_000,
      restoredAtMs: 45_000,
      // The gatekeeper stamped nothing from 41.2 s to 48.7 s (out of order, as ClickHouse may return them).
      ingestMs: [48_700, 40_000, 41_200, 40_600, 49_000],
      page: { toPageMs: null, alertname: null, toResolvedMs: null },
      reconcile: null,
    });
    expect(f.gatekeeper_pause_ms).toBe(7_500);
    expect(f.gatekeeper_pause_from_fault_ms).toBe(1_200);
    expect(f.write_pause_ms).toBe(11_000);
    expect(f.write_pause_from_fault_ms).toBe(-1000);
    expect(f.back_under_slo_s).toBe(15);
    expect(f.max_age_during).toEqual({ ageS: 30, layer: 'clean' });
  });

  it('leaves the gatekeeper pause null when the stamps could not be read', () => {
    const f = computeFigures({
      ackedMs: [0, 1000],
      timeline: [],
      histograms: new Map(),
      loadStartS: 0,
      loadEndS: 2,
      faultAtMs: 500,
      restoredAtMs: 600,
      ingestMs: null,
      page: { toPageMs: null, alertname: null, toResolvedMs: null },
      reconcile: null,
    });
    expect(f.gatekeeper_pause_ms).toBeNull();
    expect(f.gatekeeper_pause_from_fault_ms).toBeNull();
  });
});

describe('summariseReport', () => {
  it('keeps the evidence of every layer that is not exact', () => {
    const ev = (count: number) => ({ count });
    const s = summariseReport({
      verdict: 'inexact',
      layers: [
        {
          layer: 'clickstream.raw',
          verdict: 'exact',
          missing: ev(0),
          duplicated: ev(0),
          unexpected: ev(0),
          differing: null,
        },
        {
          layer: 'agg.windows',
          verdict: 'inexact',
          missing: ev(1),
          duplicated: ev(2),
          unexpected: ev(0),
          differing: ev(4),
        },
      ],
    });
    expect(s.layers).toEqual({ 'clickstream.raw': 'exact', 'agg.windows': 'inexact' });
    expect(s.evidence).toEqual({
      'agg.windows': { missing: 1, duplicated: 2, unexpected: 0, differing: 4 },
    });
  });
});
