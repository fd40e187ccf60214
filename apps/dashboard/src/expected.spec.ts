import { expectedFromLedger, funnelLevel } from './expected';

type Row = Parameters<typeof expectedFromLedger>[0] extends Iterable<infer R> ? R : never;

const T0 = 1_760_000_040_000;
let n = 0;
function row(session: string, type: Row['event_type'], dt: number, extra: Partial<Row> = {}): Row {
  n += 1;
  return {
    run_id: 'r1',
    event_id: `e${n}`,
    event_type: type,
    session_id: session,
    event_time: T0 + dt,
    amount_cents: null,
    expected_fate: 'valid',
    expected_timeliness: 'on_time',
    delivery: 'acked',
    ...extra,
  };
}
const q = { fromMs: T0, toMs: T0 + 600_000, windowMs: 60_000 };

describe('funnelLevel (windowFunnel semantics)', () => {
  it('is 0 without a first step, and counts steps in order within the window (inclusive)', () => {
    expect(funnelLevel([], 10)).toBe(0);
    expect(funnelLevel([{ t: 0, step: 1 }], 10)).toBe(0);
    expect(
      funnelLevel(
        [
          { t: 0, step: 0 },
          { t: 10, step: 1 },
          { t: 11, step: 2 },
        ],
        10,
      ),
    ).toBe(2);
    expect(
      funnelLevel(
        [
          { t: 0, step: 0 },
          { t: 0, step: 2 },
        ],
        10,
      ),
    ).toBe(1);
  });

  it('orders same-time events by step and restarts the chain at a later first step', () => {
    expect(
      funnelLevel(
        [
          { t: 5, step: 1 },
          { t: 5, step: 0 },
        ],
        10,
      ),
    ).toBe(2);
    expect(
      funnelLevel(
        [
          { t: 0, step: 0 },
          { t: 50, step: 0 },
          { t: 55, step: 1 },
        ],
        10,
      ),
    ).toBe(2);
    const all = [0, 1, 2, 3, 4].map((step) => ({ t: step, step }));
    expect(funnelLevel(all, 10)).toBe(5);
  });
});

describe('expectedFromLedger', () => {
  it('is all zeros for an empty ledger', () => {
    expect(expectedFromLedger([], q)).toEqual({
      funnel: [0, 0, 0, 0, 0],
      revenue: [],
      revenueOnTime: [],
      uncertain: 0,
    });
  });

  it('decides on time by the recorded ingest time when it is given', () => {
    const pay = row('A', 'payment_succeeded', 0, { amount_cents: 10 });
    const ingest = new Map([[pay.event_id as string, T0 + 5_001]]); // 1 ms beyond L = 5 s
    const e = expectedFromLedger([pay], { ...q, ingestTimeOf: (_run, id) => ingest.get(id) });
    expect(e.revenue).toEqual([{ minute: T0, revenueCents: 10, payments: 1 }]);
    expect(e.revenueOnTime).toEqual([]);
  });

  it('counts each event once, skips poison, probe runs, other ranges, and flags failed sends', () => {
    const pay = row('A', 'payment_succeeded', 4000, { amount_cents: 5000 });
    const rows: Row[] = [
      row('A', 'page_view', 0),
      row('A', 'product_view', 1000),
      row('A', 'add_to_cart', 2000),
      row('A', 'checkout_started', 3000),
      pay,
      { ...pay }, // an injected duplicate: same event_id
      row('B', 'page_view', 0),
      row('B', 'product_view', 61_000), // outside the window
      row('C', 'page_view', 0, { run_id: 'probe-1' }),
      row('D', 'page_view', -1), // before the range
      row('E', 'page_view', 0, { expected_fate: 'poison' }),
      row('F', 'page_view', 0, { delivery: 'failed' }),
      row('G', 'payment_succeeded', 65_000, { amount_cents: 700 }),
      row('H', 'payment_succeeded', 66_000, { amount_cents: 30, expected_timeliness: 'late' }),
    ];
    expect(expectedFromLedger(rows, q)).toEqual({
      funnel: [2, 1, 1, 1, 1],
      revenue: [
        { minute: T0, revenueCents: 5000, payments: 1 },
        { minute: T0 + 60_000, revenueCents: 730, payments: 2 },
      ],
      revenueOnTime: [
        { minute: T0, revenueCents: 5000, payments: 1 },
        { minute: T0 + 60_000, revenueCents: 700, payments: 1 },
      ],
      uncertain: 1,
    });
  });
});
