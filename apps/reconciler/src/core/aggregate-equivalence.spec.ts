/**
 * The aggregate expectation and check on key ids must say exactly what the string-keyed Maps they
 * replaced said: same rows in the same order, same counts, same examples. The reference below is
 * the former implementation, kept here only as the oracle.
 */
import {
  SESSION_GAP_MS,
  sessionKey,
  WINDOW_SIZE_MS,
  windowKey,
  windowStartOf,
  type LayerReport,
} from '@clickstream/contracts';
import { formatKey, type AggregateKind } from './aggregate-keys';
import {
  AggregateRows,
  type ObservedAggregate,
  type SessionValues,
  type WindowValues,
} from './aggregate-rows';
import { checkAggregateLayer } from './check-aggregate';
import { EvidenceCollector } from './evidence';
import { Counted, expectedSessions, expectedWindows, groupIndexes } from './timed-expectation';

interface Event {
  sessionId: string;
  eventType: string;
  eventTime: number;
  amountCents: number;
}

function referenceWindows(runId: string, events: Event[]): Map<string, WindowValues> {
  const acc = new Map<string, { v: WindowValues; sessions: Set<string> }>();
  for (const e of events) {
    const start = windowStartOf(e.eventTime);
    const key = windowKey({ run_id: runId, window_start: start, event_type: e.eventType });
    let a = acc.get(key);
    if (a === undefined) {
      a = {
        v: {
          window_end: start + WINDOW_SIZE_MS,
          event_count: 0,
          amount_cents_sum: 0,
          distinct_sessions: 0,
        },
        sessions: new Set(),
      };
      acc.set(key, a);
    }
    a.v.event_count++;
    a.v.amount_cents_sum += e.amountCents;
    a.sessions.add(e.sessionId);
  }
  const out = new Map<string, WindowValues>();
  for (const [key, a] of acc) out.set(key, { ...a.v, distinct_sessions: a.sessions.size });
  return out;
}

function referenceSessions(runId: string, events: Event[]): Map<string, SessionValues> {
  const bySession = new Map<string, Event[]>();
  for (const e of events) {
    const list = bySession.get(e.sessionId);
    if (list === undefined) bySession.set(e.sessionId, [e]);
    else list.push(e);
  }
  const out = new Map<string, SessionValues>();
  for (const [sessionId, list] of bySession) {
    list.sort((a, b) => a.eventTime - b.eventTime);
    let start = 0;
    let v: SessionValues | null = null;
    let prev = 0;
    for (const e of list) {
      if (v === null || e.eventTime - prev >= SESSION_GAP_MS) {
        if (v !== null)
          out.set(sessionKey({ run_id: runId, session_id: sessionId, session_start: start }), v);
        start = e.eventTime;
        v = { session_end: e.eventTime, event_count: 0, revenue_cents: 0, converted: false };
      }
      v.session_end = e.eventTime;
      v.event_count++;
      if (e.eventType === 'payment_succeeded') {
        v.revenue_cents += e.amountCents;
        v.converted = true;
      }
      prev = e.eventTime;
    }
    if (v !== null)
      out.set(sessionKey({ run_id: runId, session_id: sessionId, session_start: start }), v);
  }
  return out;
}

interface RefRow<V> {
  key: string;
  values: V;
  version: number;
  isFinal: boolean;
  retracted: boolean;
}

function sameValues(a: unknown, b: unknown): boolean {
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return (
    ka.length === kb.length &&
    ka.every((k) => (a as Record<string, unknown>)[k] === (b as Record<string, unknown>)[k])
  );
}

/** The former check's evidence (the rest of the report is bookkeeping around it). */
function referenceCheck<V>(expected: Map<string, V>, rows: RefRow<V>[], limit: number) {
  const missing = new EvidenceCollector(limit);
  const duplicated = new EvidenceCollector(limit);
  const unexpected = new EvidenceCollector(limit);
  const differing = new EvidenceCollector(limit);
  const notFinal = new EvidenceCollector(limit);
  let retracted = 0;
  const live = new Map<string, RefRow<V>>();
  for (const row of rows) {
    if (row.retracted) {
      retracted++;
      continue;
    }
    if (live.has(row.key)) {
      duplicated.add({ key: row.key, why: 'key held twice' });
      continue;
    }
    live.set(row.key, row);
  }
  for (const row of live.values()) {
    if (!row.isFinal) {
      notFinal.add({ key: row.key, version: row.version });
      continue;
    }
    const want = expected.get(row.key);
    if (want === undefined)
      unexpected.add({
        key: row.key,
        why: 'final row the ledger does not imply',
        observed: row.values,
      });
    else if (!sameValues(want, row.values))
      differing.add({ key: row.key, expected: want, observed: row.values });
  }
  for (const [key, want] of expected) if (!live.has(key)) missing.add({ key, expected: want });
  return {
    observed: live.size,
    missing: missing.toEvidence(),
    duplicated: duplicated.toEvidence(),
    unexpected: unexpected.toEvidence(),
    differing: differing.toEvidence(),
    retracted,
    notFinal: notFinal.toEvidence(),
  };
}

function random(seed: number): () => number {
  let x = seed;
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

const T0 = 1_700_000_000_000;
const TYPES = ['page_view', 'add_to_cart', 'payment_succeeded'];

function randomEvents(next: () => number, n: number): Event[] {
  return Array.from({ length: n }, () => ({
    sessionId: `s${Math.floor(next() * 12)}`,
    eventType: TYPES[Math.floor(next() * TYPES.length)] as string,
    eventTime: T0 + Math.floor(next() * 200) * 1000,
    amountCents: Math.floor(next() * 3) * 100,
  }));
}

function countedOf(events: Event[]): Counted {
  const c = new Counted();
  for (const e of events) c.push(e.sessionId, e.eventType, e.eventTime, e.amountCents);
  return c;
}

/** Observed rows from the expected ones, each dropped, doubled, changed, retracted, not final, or moved at random. */
function mutate<V extends WindowValues | SessionValues>(
  kind: AggregateKind,
  expected: [string, V][],
  parts: { runId: string; text: string; time: number }[],
  next: () => number,
): ObservedAggregate<V>[] {
  const out: ObservedAggregate<V>[] = [];
  expected.forEach(([, values], i) => {
    const p = parts[i] as { runId: string; text: string; time: number };
    const row: ObservedAggregate<V> = { ...p, values, version: 2, isFinal: true, retracted: false };
    const r = next();
    if (r < 0.1) return;
    if (r < 0.2) out.push(row, { ...row, version: 3 });
    else if (r < 0.3)
      out.push({ ...row, values: { ...values, event_count: values.event_count + 1 } });
    else if (r < 0.4) out.push({ ...row, retracted: true }, row);
    else if (r < 0.5) out.push({ ...row, isFinal: false });
    else if (r < 0.6) out.push({ ...row, time: row.time + 1 });
    else if (r < 0.65) out.push({ ...row, runId: 'other' });
    else out.push(row);
  });
  if (kind === 'sessions' && out.length > 1) out.reverse();
  return out;
}

describe('aggregates on key ids say what the string-keyed Maps said', () => {
  it('the empty cases', () => {
    expect([...expectedWindows('r', new Counted())]).toEqual([]);
    expect([...expectedSessions('r', new Counted())]).toEqual([]);
    expect(groupIndexes([], 0)).toEqual({ order: new Int32Array(0), starts: new Int32Array(1) });
  });

  it('groupIndexes groups stably', () => {
    const { order, starts } = groupIndexes([2, 0, 2, 1, 0], 3);
    expect([...order]).toEqual([1, 4, 3, 0, 2]);
    expect([...starts]).toEqual([0, 2, 3, 5]);
  });

  for (let seed = 1; seed <= 40; seed++) {
    it(`random events and layers, seed ${seed}`, () => {
      const next = random(seed);
      const events = randomEvents(next, Math.floor(next() * 300));
      const counted = countedOf(events);
      for (const kind of ['windows', 'sessions'] as const) {
        const expected =
          kind === 'windows' ? expectedWindows('r', counted) : expectedSessions('r', counted);
        const reference: Map<string, WindowValues | SessionValues> =
          kind === 'windows' ? referenceWindows('r', events) : referenceSessions('r', events);
        expect([...expected]).toEqual([...reference]);
        const parts = Array.from({ length: expected.size }, (_, id) => ({
          runId: expected.space.runIdOf(id),
          text: expected.space.textOf(id),
          time: expected.space.timeOf(id),
        }));
        const rows = mutate(
          kind,
          [...expected] as [string, WindowValues | SessionValues][],
          parts,
          next,
        );
        const limit = 1 + Math.floor(next() * 5);
        const report: LayerReport = checkAggregateLayer({
          layer: kind === 'windows' ? 'agg.windows' : 'agg.sessions',
          expected,
          read: {
            ok: true,
            contents: {
              rows: AggregateRows.of(kind, rows),
              conflicts: [],
              undecodable: { count: 0, examples: [] },
              foreign: 0,
              notes: [],
              readMs: 0,
            },
          },
          unknownBecause: [],
          inexactBecause: [],
          examples: limit,
        });
        const ref = referenceCheck(
          reference,
          rows.map((r) => ({ ...r, key: formatKey(kind, r.runId, r.text, r.time) })),
          limit,
        );
        expect({
          observed: report.observed,
          expected: report.expected,
          missing: report.missing,
          duplicated: report.duplicated,
          unexpected: report.unexpected,
          differing: report.differing,
        }).toEqual({
          observed: ref.observed,
          expected: reference.size,
          missing: ref.missing,
          duplicated: ref.duplicated,
          unexpected: ref.unexpected,
          differing: ref.differing,
        });
        if (ref.retracted > 0)
          expect(report.notes).toContain(`${ref.retracted} retracted row(s) dropped`);
        if (ref.notFinal.count > 0)
          expect(report.notes).toContain(
            `${ref.notFinal.count} row(s) not final yet, e.g. ${JSON.stringify(ref.notFinal.examples.slice(0, 3))}`,
          );
      }
    });
  }
});
