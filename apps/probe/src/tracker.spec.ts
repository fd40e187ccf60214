import type { LayerName } from './layers';
import { ProbeTracker } from './tracker';

function recorder() {
  const seen: [LayerName, number][] = [];
  const judged: [LayerName, boolean][] = [];
  const forgotten: LayerName[] = [];
  return {
    seen,
    judged,
    forgotten,
    hooks: {
      onSeen: (l: LayerName, ms: number) => seen.push([l, ms]),
      onJudged: (l: LayerName, ok: boolean) => judged.push([l, ok]),
      onForgotten: (l: LayerName) => forgotten.push(l),
    },
  };
}

const T0 = 1_700_000_000_000;

function tracker(layers: LayerName[] = ['valid', 'clean']) {
  const r = recorder();
  const t = new ProbeTracker({
    layers,
    sloThresholdMs: 10_000,
    forgetAfterMs: 60_000,
    startedAt: T0,
    hooks: r.hooks,
  });
  return { t, r };
}

describe('ProbeTracker', () => {
  it('with nothing sent, watches nothing and ages from the start', () => {
    const { t, r } = tracker();
    expect(t.watchFrom('clean')).toBeNull();
    expect(t.newestSeenAgeMs('clean', T0 + 7_000)).toBe(7_000);
    t.tick(T0 + 100_000);
    expect(r.judged).toEqual([]);
  });

  it('records freshness per layer once, and judges an on-time event good at sight', () => {
    const { t, r } = tracker();
    t.sent(0, T0);
    t.seen('valid', [0], T0 + 1_200);
    t.seen('valid', [0], T0 + 2_200); // the next poll sees it again
    t.seen('clean', [0], T0 + 6_000);
    expect(r.seen).toEqual([
      ['valid', 1_200],
      ['clean', 6_000],
    ]);
    expect(r.judged).toEqual([
      ['valid', true],
      ['clean', true],
    ]);
    expect(t.watchFrom('valid')).toBeNull();
    expect(t.outstanding('clean')).toBe(0);
  });

  it('judges an unseen event bad as soon as its deadline passes, not when it finally arrives', () => {
    const { t, r } = tracker(['clean']);
    t.sent(0, T0);
    t.tick(T0 + 10_000);
    expect(r.judged).toEqual([]); // at the threshold it is still on time
    t.tick(T0 + 10_001);
    expect(r.judged).toEqual([['clean', false]]);
    t.seen('clean', [0], T0 + 40_000);
    expect(r.seen).toEqual([['clean', 40_000]]);
    expect(r.judged).toEqual([['clean', false]]); // never judged twice
  });

  it('the age of the newest event seen keeps rising while nothing arrives', () => {
    const { t } = tracker(['clean']);
    for (let i = 0; i < 4; i++) t.sent(i, T0 + i * 5_000);
    t.seen('clean', [0, 1], T0 + 7_000);
    expect(t.newestSeenAgeMs('clean', T0 + 7_000)).toBe(2_000);
    expect(t.newestSeenAgeMs('clean', T0 + 47_000)).toBe(42_000);
    expect(t.watchFrom('clean')).toBe(2);
    t.seen('clean', [3], T0 + 48_000); // out of order: the newest counts
    expect(t.newestSeenAgeMs('clean', T0 + 48_000)).toBe(33_000);
    expect(t.watchFrom('clean')).toBe(2);
  });

  it('ignores seqs it never sent and forgets events no layer shows within forgetAfterMs', () => {
    const { t, r } = tracker(['valid']);
    t.sent(0, T0);
    t.seen('valid', [99], T0 + 1_000);
    expect(r.seen).toEqual([]);
    t.tick(T0 + 60_001);
    expect(r.forgotten).toEqual(['valid']);
    expect(r.judged).toEqual([['valid', false]]);
    expect(t.watchFrom('valid')).toBeNull();
  });

  it('refuses a seq sent twice (a bug in the caller)', () => {
    const { t } = tracker();
    t.sent(1, T0);
    expect(() => t.sent(1, T0)).toThrow(/sent twice/);
  });
});
