import {
  ReconciliationReportSchema,
  type LayerReport,
  type LedgerRow,
} from '@clickstream/contracts';
import { formatKey, type AggregateKind } from './aggregate-keys';
import { AggregateRows, type ObservedAggregate, type ValuesOf } from './aggregate-rows';
import type { AggregateRead } from './check-aggregate';
import type { LayerRead } from './contents';
import { indexLedger } from './ledger-index';
import { ledgerEventsOf } from './ledger-events';
import { resolvedByRaw } from './reconcile';
import { reconcileTimed, type IngestRead, type TimedRead } from './reconcile-timed';
import type { ExpectedAggregates } from './expected-aggregates';
import { timedExpectation, type SessionValues, type WindowValues } from './timed-expectation';
import { duplicateSend, poisonSend, RUN, validSend } from '../../test/ledger-rows';

const T0 = 1_700_000_000_000; // a multiple of 10 s
const L = 5000;

/** A valid send at `sendTime` (ingest = send + 7 ms) with the given event_time. */
function send(seq: number, eventTime: number, over: Partial<LedgerRow> = {}): LedgerRow {
  return validSend(seq, { event_time: eventTime, send_time: eventTime + 7, ...over });
}

// s1: page_view + payment at T0+1 s / +2 s (window T0), s2: page_view at T0+12 s (next window),
// seq 3 minutes late, 4 a duplicate of 1, 5 poison, 6 exactly on the L edge (on time), 7 one ms past it (late).
const LEDGER: LedgerRow[] = [
  send(0, T0 + 1000, { session_id: 's1' }),
  send(1, T0 + 2000, { session_id: 's1', event_type: 'payment_succeeded', amount_cents: 1250 }),
  send(2, T0 + 12_000, { session_id: 's2' }),
  send(3, T0 + 3000, { session_id: 's1', send_time: T0 + 3000 + 180_000 }),
  duplicateSend(4, 1, {
    session_id: 's1',
    event_type: 'payment_succeeded',
    amount_cents: 1250,
    event_time: T0 + 2000,
    send_time: T0 + 9000,
  }),
  poisonSend(5),
  send(6, T0 + 4000, { session_id: 's3', send_time: T0 + 4000 + L - 7 }),
  send(7, T0 + 5000, { session_id: 's3', send_time: T0 + 5000 + L + 1 - 7 }),
];

/** Ingest time as the broker would stamp it: 7 ms after the send. */
function ingestOf(rows: LedgerRow[], skip: number[] = []): IngestRead {
  return {
    ok: true,
    times: new Map(
      rows
        .filter((r) => r.expected_fate === 'valid' && !skip.includes(r.seq))
        .map((r) => [r.seq, r.send_time + 7]),
    ),
    notes: [],
  };
}

function rowsOf<K extends AggregateKind>(
  expected: ExpectedAggregates<K>,
  over: Partial<ObservedAggregate<ValuesOf<K>>> = {},
): ObservedAggregate<ValuesOf<K>>[] {
  return Array.from({ length: expected.size }, (_, id) => ({
    runId: expected.space.runIdOf(id),
    text: expected.space.textOf(id),
    time: expected.space.timeOf(id),
    values: expected.valuesOf(id),
    version: 2,
    isFinal: true,
    retracted: false,
    ...over,
  }));
}

const keyOf = (kind: AggregateKind, r: ObservedAggregate<unknown>): string =>
  formatKey(kind, r.runId, r.text, r.time);

function aggRead<V extends WindowValues | SessionValues>(
  kind: AggregateKind,
  rows: ObservedAggregate<V>[],
  extra: Partial<{ conflicts: { key: string; version: number }[] }> = {},
): AggregateRead {
  return {
    ok: true,
    contents: {
      rows: AggregateRows.of(kind, rows),
      conflicts: extra.conflicts ?? [],
      undecodable: { count: 0, examples: [] },
      foreign: 0,
      notes: [],
      readMs: 1,
    },
  };
}

function lateRead(seqs: number[], eventIds?: (string | null)[]): LayerRead {
  return {
    ok: true,
    contents: { seqs, foreign: 0, notes: [], readMs: 1, ...(eventIds ? { eventIds } : {}) },
  };
}

const expectation = (rows: LedgerRow[], ingest = ingestOf(rows)) =>
  timedExpectation({
    ledger: indexLedger(rows),
    events: ledgerEventsOf(rows),
    ingest: ingest.ok ? ingest.times : new Map(),
    latenessMs: L,
    ingestBoundMs: 60_000,
  });

function check(
  rows: LedgerRow[],
  layers: TimedRead[],
  ingest = ingestOf(rows),
  ledgerProblems: string[] = [],
): LayerReport[] {
  const reports = reconcileTimed({
    ledger: indexLedger(rows),
    events: ledgerEventsOf(rows),
    ingest,
    latenessMs: L,
    ingestBoundMs: 60_000,
    ledgerProblems,
    layers,
  });
  const schema = ReconciliationReportSchema.shape.layers;
  expect(schema.safeParse(reports).success).toBe(true);
  return reports;
}

/** Every layer exactly as the ledger implies. */
function perfect(rows: LedgerRow[]): TimedRead[] {
  const e = expectation(rows);
  const late: number[] = [];
  for (let s = 0; s < e.lateNeed.length; s++) if (e.lateNeed[s] === 1) late.push(s);
  return [
    { layer: 'events.late', kind: 'late', read: lateRead(late) },
    {
      layer: 'clickhouse.events_late',
      kind: 'late',
      read: lateRead(
        late,
        late.map((s) => `e-${s}`),
      ),
    },
    { layer: 'agg.windows', kind: 'windows', read: aggRead('windows', rowsOf(e.windows)) },
    {
      layer: 'clickhouse.agg_windows',
      kind: 'windows',
      read: aggRead('windows', rowsOf(e.windows)),
    },
    { layer: 'agg.sessions', kind: 'sessions', read: aggRead('sessions', rowsOf(e.sessions)) },
    {
      layer: 'clickhouse.agg_sessions',
      kind: 'sessions',
      read: aggRead('sessions', rowsOf(e.sessions)),
    },
  ];
}

const verdicts = (reports: LayerReport[]) => reports.map((r) => r.verdict);

describe('timedExpectation', () => {
  it('the empty ledger expects nothing', () => {
    const e = expectation([]);
    expect([e.windows.size, e.sessions.size, e.onTime, e.late]).toEqual([0, 0, 0, 0]);
  });

  it('splits by the rule on the observed ingest time, L edge included, counting each event once', () => {
    const e = expectation(LEDGER);
    expect({ onTime: e.onTime, late: e.late }).toEqual({ onTime: 4, late: 2 });
    expect([...e.lateNeed.keys()].filter((s) => e.lateNeed[s] === 1)).toEqual([3, 7]);
    expect(Object.fromEntries(e.windows)).toEqual({
      [`${RUN}|${T0}|page_view`]: {
        window_end: T0 + 10_000,
        event_count: 2,
        amount_cents_sum: 0,
        distinct_sessions: 2,
      },
      [`${RUN}|${T0}|payment_succeeded`]: {
        window_end: T0 + 10_000,
        event_count: 1,
        amount_cents_sum: 1250,
        distinct_sessions: 1,
      },
      [`${RUN}|${T0 + 10_000}|page_view`]: {
        window_end: T0 + 20_000,
        event_count: 1,
        amount_cents_sum: 0,
        distinct_sessions: 1,
      },
    });
    expect(Object.fromEntries(e.sessions)).toEqual({
      [`${RUN}|s1|${T0 + 1000}`]: {
        session_end: T0 + 2000,
        event_count: 2,
        revenue_cents: 1250,
        converted: true,
      },
      [`${RUN}|s2|${T0 + 12_000}`]: {
        session_end: T0 + 12_000,
        event_count: 1,
        revenue_cents: 0,
        converted: false,
      },
      [`${RUN}|s3|${T0 + 4000}`]: {
        session_end: T0 + 4000,
        event_count: 1,
        revenue_cents: 0,
        converted: false,
      },
    });
  });

  it('uses the observed ingest time, not the send time, for the rule', () => {
    // seq 0 sent on time but stamped by the broker 10 s later: late by the rule.
    const ingest: IngestRead = { ok: true, times: new Map([[0, T0 + 1000 + L + 4000]]), notes: [] };
    const e = expectation([send(0, T0 + 1000)], ingest);
    expect({ late: e.late, windows: e.windows.size }).toEqual({ late: 1, windows: 0 });
  });

  it('cuts sessions at a gap of 30 s and merges them when an out-of-order event fills the gap', () => {
    const two = expectation([
      send(0, T0, { session_id: 'x' }),
      send(1, T0 + 30_000, { session_id: 'x' }),
    ]);
    expect([...two.sessions.keys()]).toEqual([`${RUN}|x|${T0}`, `${RUN}|x|${T0 + 30_000}`]);
    const one = expectation([
      send(0, T0, { session_id: 'x' }),
      send(1, T0 + 29_999, { session_id: 'x' }),
    ]);
    expect([...one.sessions.keys()]).toEqual([`${RUN}|x|${T0}`]);
    const merged = expectation([
      send(0, T0, { session_id: 'x' }),
      send(1, T0 + 31_000, { session_id: 'x' }),
      send(2, T0 + 29_000, { session_id: 'x', send_time: T0 + 31_500 }),
    ]);
    expect(Object.fromEntries(merged.sessions)).toEqual({
      [`${RUN}|x|${T0}`]: {
        session_end: T0 + 31_000,
        event_count: 3,
        revenue_cents: 0,
        converted: false,
      },
    });
  });

  it('leaves probe runs out of the aggregates but not out of the late stream', () => {
    const probe = (seq: number, t: number, over: Partial<LedgerRow> = {}) =>
      send(seq, t, { run_id: 'probe-1', ...over });
    const e = expectation([probe(0, T0), probe(1, T0, { send_time: T0 + 60_000 })]);
    expect({ windows: e.windows.size, sessions: e.sessions.size, late: e.late }).toEqual({
      windows: 0,
      sessions: 0,
      late: 1,
    });
  });
});

describe('timedExpectation: which copy of a duplicated event survives', () => {
  // seq 0 sent first but written second (send order lost by the producer); seq 1, its copy, sent
  // 3 s later and written first: ingest 3 s apart, on either side of the lateness bound.
  const original = send(0, T0, { session_id: 's', send_time: T0 + L - 7 + 1 }); // ingest T0 + L + 1: late
  const copy = duplicateSend(1, 0, { session_id: 's', event_time: T0, send_time: T0 + 1000 - 7 }); // ingest T0 + 1 s: on time
  const rows = [original, copy];
  const ingest = ingestOf(rows);
  const at = (entries: [number, number][]) => new Map(entries);
  const run = (positions?: { partition: Map<number, number>; rank: Map<number, number> }) =>
    timedExpectation({
      ledger: indexLedger(rows),
      events: ledgerEventsOf(rows),
      ingest: ingest.ok ? ingest.times : new Map(),
      positions,
      latenessMs: L,
      ingestBoundMs: 60_000,
    });

  it('without positions, the first copy sent', () => {
    expect({ late: run().late, onTime: run().onTime }).toEqual({ late: 1, onTime: 0 });
  });

  it('with positions, the copy first in its partition of events.valid (what the clean job keeps)', () => {
    const e = run({
      partition: at([
        [0, 2],
        [1, 2],
      ]),
      rank: at([
        [0, 7],
        [1, 3],
      ]),
    });
    expect({ late: e.late, onTime: e.onTime, windows: e.windows.size }).toEqual({
      late: 0,
      onTime: 1,
      windows: 1,
    });
    expect(e.ambiguous.count).toBe(0);
  });

  it('copies in different partitions on both sides of the bound: ambiguous, never counted either way', () => {
    const e = run({
      partition: at([
        [0, 1],
        [1, 4],
      ]),
      rank: at([
        [0, 2],
        [1, 9],
      ]),
    });
    expect({ late: e.late, onTime: e.onTime, ambiguous: e.ambiguous.count }).toEqual({
      late: 0,
      onTime: 0,
      ambiguous: 1,
    });
    const reports = reconcileTimed({
      ledger: indexLedger(rows),
      events: ledgerEventsOf(rows),
      ingest: {
        ...(ingest as IngestRead & { ok: true }),
        positions: {
          partition: at([
            [0, 1],
            [1, 4],
          ]),
          rank: at([
            [0, 2],
            [1, 9],
          ]),
        },
      },
      latenessMs: L,
      ingestBoundMs: 60_000,
      ledgerProblems: [],
      layers: [{ layer: 'events.late', kind: 'late', read: lateRead([]) }],
    });
    expect(reports[0]?.verdict).toBe('unknown');
    expect(reports[0]?.notes.join(' ')).toMatch(/different partitions of events.valid/);
  });
});

describe('reconcileTimed: the empty case', () => {
  it('an empty ledger with empty layers is exact at every timed layer', () => {
    expect(verdicts(check([], perfect([])))).toEqual(Array(6).fill('exact'));
  });

  it('no timed layer requested: no report', () => {
    expect(check(LEDGER, [])).toEqual([]);
  });

  it('layers that hold nothing although rows are expected are unknown, never exact', () => {
    const reports = check(LEDGER, [
      { layer: 'agg.windows', kind: 'windows', read: aggRead('windows', []) },
      { layer: 'events.late', kind: 'late', read: lateRead([]) },
    ]);
    expect(verdicts(reports)).toEqual(['unknown', 'unknown']);
  });
});

describe('reconcileTimed: every check can fail', () => {
  it('the untouched layers are exact (the baseline of the mutations below)', () => {
    expect(verdicts(check(LEDGER, perfect(LEDGER)))).toEqual(Array(6).fill('exact'));
  });

  const windowsLayer = (
    rows: ObservedAggregate<WindowValues>[],
    conflicts: { key: string; version: number }[] = [],
  ): TimedRead[] => [
    { layer: 'agg.windows', kind: 'windows', read: aggRead('windows', rows, { conflicts }) },
  ];
  const sessionsLayer = (rows: ObservedAggregate<SessionValues>[]): TimedRead[] => [
    { layer: 'clickhouse.agg_sessions', kind: 'sessions', read: aggRead('sessions', rows) },
  ];

  it('a final row with another count differs: inexact, with key, expected and observed', () => {
    const rows = rowsOf(expectation(LEDGER).windows);
    const first = rows[0] as ObservedAggregate<WindowValues>;
    const bad = {
      ...first,
      values: { ...first.values, event_count: first.values.event_count + 1 },
    };
    const [r] = check(LEDGER, windowsLayer([bad, ...rows.slice(1)]));
    expect(r?.verdict).toBe('inexact');
    expect(r?.differing).toEqual({
      count: 1,
      examples: [{ key: keyOf('windows', first), expected: first.values, observed: bad.values }],
    });
  });

  it('a missing window is inexact', () => {
    const rows = rowsOf(expectation(LEDGER).windows);
    const [r] = check(LEDGER, windowsLayer(rows.slice(1)));
    expect([r?.verdict, r?.missing.count]).toEqual(['inexact', 1]);
  });

  it('a final row the ledger does not imply is unexpected: inexact', () => {
    const rows = rowsOf(expectation(LEDGER).windows);
    const extra = {
      ...(rows[0] as ObservedAggregate<WindowValues>),
      time: T0 + 90_000,
      text: 'page_view',
    };
    const [r] = check(LEDGER, windowsLayer([...rows, extra]));
    expect([r?.verdict, r?.unexpected.count]).toEqual(['inexact', 1]);
  });

  it('two differing emissions of the latest version are duplicated: inexact', () => {
    const rows = rowsOf(expectation(LEDGER).windows);
    const [r] = check(
      LEDGER,
      windowsLayer(rows, [
        { key: keyOf('windows', rows[0] as ObservedAggregate<WindowValues>), version: 2 },
      ]),
    );
    expect([r?.verdict, r?.duplicated.count]).toEqual(['inexact', 1]);
  });

  it('a row that is not final yet makes the layer unknown even when its values are right', () => {
    const rows = rowsOf(expectation(LEDGER).windows);
    const [r] = check(
      LEDGER,
      windowsLayer([
        { ...(rows[0] as ObservedAggregate<WindowValues>), isFinal: false },
        ...rows.slice(1),
      ]),
    );
    expect(r?.verdict).toBe('unknown');
    expect(r?.notes.join()).toContain('not final yet');
  });

  it('a retracted row is dropped: the session it stood for is missing', () => {
    const rows = rowsOf(expectation(LEDGER).sessions);
    const [r] = check(
      LEDGER,
      sessionsLayer([
        { ...(rows[0] as ObservedAggregate<SessionValues>), retracted: true },
        ...rows.slice(1),
      ]),
    );
    expect([r?.verdict, r?.missing.count]).toEqual(['inexact', 1]);
  });

  it('a session left unmerged next to its merged successor is unexpected', () => {
    const rows = [
      send(0, T0, { session_id: 'x' }),
      send(1, T0 + 31_000, { session_id: 'x' }),
      send(2, T0 + 29_000, { session_id: 'x', send_time: T0 + 31_500 }),
    ];
    const merged = rowsOf(expectation(rows).sessions);
    const stale: ObservedAggregate<SessionValues> = {
      runId: RUN,
      text: 'x',
      time: T0 + 31_000,
      values: { session_end: T0 + 31_000, event_count: 1, revenue_cents: 0, converted: false },
      version: 1,
      isFinal: true,
      retracted: false,
    };
    const [r] = check(rows, sessionsLayer([...merged, stale]));
    expect([r?.verdict, r?.unexpected.count]).toEqual(['inexact', 1]);
    const [ok] = check(rows, sessionsLayer([...merged, { ...stale, retracted: true, version: 2 }]));
    expect(ok?.verdict).toBe('exact');
  });

  it('an on-time event in the late stream is unexpected, a late one missing from it is missing', () => {
    const [onTime] = check(LEDGER, [
      { layer: 'events.late', kind: 'late', read: lateRead([3, 7, 0]) },
    ]);
    expect([onTime?.verdict, onTime?.unexpected.examples[0]]).toEqual([
      'inexact',
      { seq: 0, why: 'on-time event in the late layer' },
    ]);
    const [missing] = check(LEDGER, [{ layer: 'events.late', kind: 'late', read: lateRead([3]) }]);
    expect([missing?.verdict, missing?.missing.examples]).toEqual(['inexact', [{ seq: 7 }]]);
    const [twice] = check(LEDGER, [
      { layer: 'events.late', kind: 'late', read: lateRead([3, 7, 7]) },
    ]);
    expect([twice?.verdict, twice?.duplicated.count]).toEqual(['inexact', 1]);
  });

  it('an ingest time far from the send time (not the broker stamp) makes every timed layer inexact', () => {
    const ingest = ingestOf(LEDGER);
    const times = new Map(ingest.ok ? ingest.times : []);
    times.set(2, (times.get(2) as number) - 3_600_000);
    // Windows computed with the forged time would still match: the bound check is what fails.
    const reports = check(LEDGER, perfect(LEDGER), { ok: true, times, notes: [] });
    expect(verdicts(reports)).toEqual(Array(6).fill('inexact'));
    expect(reports[0]?.notes.join()).toContain("from the ledger's send_time");
  });

  it('an acknowledged event whose ingest time was not observed makes every timed layer unknown', () => {
    const reports = check(LEDGER, perfect(LEDGER), ingestOf(LEDGER, [2]));
    expect(verdicts(reports)).toEqual(Array(6).fill('unknown'));
  });

  it('unreadable ingest times or a ledger problem make every timed layer unknown', () => {
    expect(verdicts(check(LEDGER, perfect(LEDGER), { ok: false, error: 'broker down' }))).toEqual(
      Array(6).fill('unknown'),
    );
    expect(
      verdicts(
        check(LEDGER, perfect(LEDGER), ingestOf(LEDGER), [
          'ledger has 1 row(s) whose seq was already seen',
        ]),
      ),
    ).toEqual(Array(6).fill('unknown'));
  });

  it('a layer that could not be read is unknown, with the error', () => {
    const [r] = check(LEDGER, [
      { layer: 'agg.sessions', kind: 'sessions', read: { ok: false, error: 'timeout', readMs: 3 } },
    ]);
    expect(r?.verdict).toBe('unknown');
    expect(r?.notes[0]).toContain('timeout');
  });
});

describe('timed layers: failed sends that raw holds', () => {
  // seq 1 failed as far as the generator knows, but raw holds it; events.valid does not (lost after raw).
  const rows = [
    send(0, T0 + 1000, { session_id: 's1' }),
    send(1, T0 + 2000, { session_id: 's1', delivery: 'failed' }),
  ];
  const ingest = ingestOf(rows, [1]);

  it('with the raw-resolved ledger the lost event is expected: its ingest time unobserved, never exact', () => {
    const ledger = indexLedger(rows);
    const resolved = resolvedByRaw(ledger, [
      {
        layer: 'clickstream.raw',
        read: { ok: true, contents: { seqs: [0, 1], foreign: 0, notes: [], readMs: 0 } },
      },
    ]);
    const events = ledgerEventsOf(rows);
    if (!ingest.ok) throw new Error('unreachable');
    const input = { events, ingest: ingest.times, latenessMs: L, ingestBoundMs: 60_000 };
    expect(timedExpectation({ ...input, ledger }).unobserved.count).toBe(0);
    expect(timedExpectation({ ...input, ledger: resolved }).unobserved).toEqual({
      count: 1,
      examples: [{ seq: 1 }],
    });
  });
});
