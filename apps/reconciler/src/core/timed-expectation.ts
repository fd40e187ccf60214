/**
 * What the timed layers must hold, as a pure function of the ledger and each event's observed
 * ingest time: the lateness rule splits the distinct valid events (first send of each event_id)
 * into late (events.late) and on time (counted in 10 s windows and 30 s-gap sessions).
 */

import {
  isProbeRun,
  SESSION_GAP_MS,
  sessionKey,
  timeliness,
  WINDOW_SIZE_MS,
  windowKey,
  windowStartOf,
  type Evidence,
} from '@clickstream/contracts';
import { DEFAULT_EXAMPLES, EvidenceCollector } from './evidence';
import { NEED } from './expectation';
import { DELIVERY, FATE, type LedgerIndex } from './ledger-index';
import type { LedgerEvent, LedgerEvents } from './ledger-events';

export interface WindowValues {
  window_end: number;
  event_count: number;
  amount_cents_sum: number;
  distinct_sessions: number;
}

export interface SessionValues {
  session_end: number;
  event_count: number;
  revenue_cents: number;
  converted: boolean;
}

export interface TimedExpectationInput {
  ledger: LedgerIndex;
  events: LedgerEvents;
  /** Observed ingest_time by seq, read from events.valid. */
  ingest: ReadonlyMap<number, number>;
  latenessMs: number;
  /** Largest allowed |ingest_time - send_time|: beyond it the broker did not stamp the send. */
  ingestBoundMs: number;
  examples?: number;
}

export interface TimedExpectation {
  windows: Map<string, WindowValues>;
  sessions: Map<string, SessionValues>;
  /** NEED per seq for the late layers (keyed by the first send, as for the clean layers). */
  lateNeed: Uint8Array;
  onTime: number;
  late: number;
  /** Events that were acknowledged but whose ingest time was not observed: the rule cannot place them (unknown). */
  unobserved: Evidence;
  /** Events whose observed ingest time is further than the bound from the ledger's send time (inexact). */
  ingestMismatch: Evidence;
  /** Valid ledger rows without the fields the rule needs (a ledger problem). */
  incomplete: Evidence;
}

interface Counted {
  sessionId: string;
  eventType: string;
  eventTime: number;
  amountCents: number;
}

/**
 * Copies of each distinct valid event, first send first, as linked lists over seqs (no array per
 * event): `first[c]` is the first copy of canonical seq c (-1 when none), `next[s]` the copy after s.
 */
function copiesByEvent(ledger: LedgerIndex): { first: Int32Array; next: Int32Array } {
  const first = new Int32Array(ledger.size).fill(-1);
  const last = new Int32Array(ledger.size);
  const next = new Int32Array(ledger.size).fill(-1);
  for (let seq = 0; seq < ledger.size; seq++) {
    if (ledger.known[seq] !== 1 || ledger.fate[seq] !== FATE.valid) continue;
    const c = ledger.canonical[seq] as number;
    if (c < 0 || c >= ledger.size) continue;
    if (first[c] === -1) first[c] = seq;
    else next[last[c] as number] = seq;
    last[c] = seq;
  }
  return { first, next };
}

function copiesOf(copies: { first: Int32Array; next: Int32Array }, c: number): number[] {
  const out: number[] = [];
  for (let s = copies.first[c] as number; s !== -1; s = copies.next[s] as number) out.push(s);
  return out;
}

export function timedExpectation(input: TimedExpectationInput): TimedExpectation {
  const { ledger, events, ingest } = input;
  const limit = input.examples ?? DEFAULT_EXAMPLES;
  const lateNeed = new Uint8Array(ledger.size);
  const unobserved = new EvidenceCollector(limit);
  const mismatch = new EvidenceCollector(limit);
  const incomplete = new EvidenceCollector(limit);
  const counted: Counted[] = [];
  let onTime = 0;
  let late = 0;
  for (let seq = 0; seq < ledger.size; seq++) {
    if (ledger.known[seq] === 1 && ledger.fate[seq] === FATE.poison)
      lateNeed[seq] = NEED.absentPoison;
  }
  const byEvent = copiesByEvent(ledger);
  // Each distinct event in the order of its first copy (send order), as the ledger sent them.
  const order: number[] = [];
  for (let seq = 0; seq < ledger.size; seq++) {
    const c = ledger.canonical[seq] as number;
    if (c >= 0 && c < ledger.size && byEvent.first[c] === seq) order.push(c);
  }
  for (const c of order) {
    // The copy that survives deduplication is the first one sent that reached events.valid.
    let survivor: number | undefined;
    for (let s = byEvent.first[c] as number; s !== -1; s = byEvent.next[s] as number)
      if (ingest.has(s)) {
        survivor = s;
        break;
      }
    if (survivor === undefined) {
      const copies = copiesOf(byEvent, c);
      const acked = copies.some((s) => ledger.delivery[s] === DELIVERY.acked);
      if (acked) unobserved.add({ seq: c });
      lateNeed[c] = acked ? NEED.atMostOnce : NEED.absentNeverSent;
      if (copies.some((s) => ledger.delivery[s] === DELIVERY.failed)) lateNeed[c] = NEED.atMostOnce;
      continue;
    }
    const ev: LedgerEvent | undefined = events.get(survivor) ?? events.get(c);
    if (ev === undefined) {
      incomplete.add({ seq: survivor });
      lateNeed[c] = NEED.atMostOnce;
      continue;
    }
    const ingestTime = ingest.get(survivor) as number;
    if (Math.abs(ingestTime - ev.sendTime) > input.ingestBoundMs) {
      mismatch.add({ seq: survivor, send_time: ev.sendTime, ingest_time: ingestTime });
    }
    if (timeliness(ev.eventTime, ingestTime, input.latenessMs) === 'late') {
      lateNeed[c] = NEED.once;
      late++;
      continue;
    }
    lateNeed[c] = NEED.absentOnTime;
    onTime++;
    if (!isProbeRun(ev.runId)) {
      counted.push({
        sessionId: ev.sessionId,
        eventType: ev.eventType,
        eventTime: ev.eventTime,
        amountCents: ev.amountCents ?? 0,
      });
    }
  }
  const runId = ledger.runId ?? '';
  return {
    windows: expectedWindows(runId, counted),
    sessions: expectedSessions(runId, counted),
    lateNeed,
    onTime,
    late,
    unobserved: unobserved.toEvidence(),
    ingestMismatch: mismatch.toEvidence(),
    incomplete: incomplete.toEvidence(),
  };
}

/** 10 s tumbling windows per event type: count, sum of amount_cents (null = 0), distinct sessions. */
export function expectedWindows(
  runId: string,
  events: readonly Counted[],
): Map<string, WindowValues> {
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

/** Per session_id, sorted by event_time: a new session when the gap to the previous event is >= 30 s. */
export function expectedSessions(
  runId: string,
  events: readonly Counted[],
): Map<string, SessionValues> {
  const bySession = new Map<string, Counted[]>();
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
