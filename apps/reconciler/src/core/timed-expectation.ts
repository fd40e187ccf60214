/**
 * What the timed layers must hold, as a pure function of the ledger and each event's observed
 * ingest time: the lateness rule splits the distinct valid events (first send of each event_id)
 * into late (events.late) and on time (counted in 10 s windows and 30 s-gap sessions).
 */

import {
  isProbeRun,
  SESSION_GAP_MS,
  timeliness,
  WINDOW_SIZE_MS,
  windowStartOf,
  type Evidence,
} from '@clickstream/contracts';
import type { SessionValues, WindowValues } from './aggregate-rows';
import { DEFAULT_EXAMPLES, EvidenceCollector } from './evidence';
import { ExpectedAggregates } from './expected-aggregates';
import { NEED } from './expectation';
import { DELIVERY, FATE, type LedgerIndex } from './ledger-index';
import type { LedgerEvent, LedgerEvents } from './ledger-events';

export type { SessionValues, WindowValues };

/** An event's observed ingest_time by seq (a Map will do; the reader gives core/seq-times.ts). */
export type IngestTimes = Pick<ReadonlyMap<number, number>, 'has' | 'get' | 'size'> &
  Iterable<[number, number]>;

/** Where each seq's record stands in events.valid: its partition, and its rank in the layer's order (partition, then offset). */
export interface ValidPositions {
  partition: Pick<ReadonlyMap<number, number>, 'get'> & Iterable<[number, number]>;
  rank: Pick<ReadonlyMap<number, number>, 'get'> & Iterable<[number, number]>;
}

export interface TimedExpectationInput {
  ledger: LedgerIndex;
  events: LedgerEvents;
  /** Observed ingest_time by seq, read from events.valid. */
  ingest: IngestTimes;
  /**
   * Where each copy stands in events.valid. The clean job keeps the copy it reads first, which in one
   * partition is the one with the lower offset, whatever the send order. Without it the survivor is
   * the first copy sent (a producer that keeps send order puts them in that order).
   */
  positions?: ValidPositions;
  latenessMs: number;
  /** Largest allowed |ingest_time - send_time|: beyond it the broker did not stamp the send. */
  ingestBoundMs: number;
  examples?: number;
}

export interface TimedExpectation {
  windows: ExpectedAggregates<'windows'>;
  sessions: ExpectedAggregates<'sessions'>;
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
  /**
   * Events whose copies sit in different partitions of events.valid and fall on different sides of
   * the lateness bound: which one the clean job kept depends on read order, so the split cannot be
   * known (unknown).
   */
  ambiguous: Evidence;
}

/**
 * The on-time events that count in windows and sessions, as columns (millions of them lived through
 * both expectations as objects). Sessions are interned: `session[i]` indexes `sessionIds`, which
 * lists them in the order they first appear.
 */
export class Counted {
  readonly eventTypes: string[] = [];
  readonly eventTimes: number[] = [];
  readonly amounts: number[] = [];
  readonly sessions: number[] = [];
  readonly sessionIds: string[] = [];
  private readonly sessionCodes = new Map<string, number>();

  get length(): number {
    return this.eventTimes.length;
  }

  push(sessionId: string, eventType: string, eventTime: number, amountCents: number): void {
    let code = this.sessionCodes.get(sessionId);
    if (code === undefined) {
      code = this.sessionIds.length;
      this.sessionIds.push(sessionId);
      this.sessionCodes.set(sessionId, code);
    }
    this.sessions.push(code);
    this.eventTypes.push(eventType);
    this.eventTimes.push(eventTime);
    this.amounts.push(amountCents);
  }
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
  const ambiguous = new EvidenceCollector(limit);
  const counted = new Counted();
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
    const survivor = survivorOf(byEvent, c, ingest, input.positions);
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
    if (
      input.positions &&
      byEvent.next[byEvent.first[c] as number] !== -1 &&
      splitAcrossPartitions(byEvent, c, ingest, input.positions, ev.eventTime, input.latenessMs)
    ) {
      ambiguous.add({ seq: c });
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
      counted.push(ev.sessionId, ev.eventType, ev.eventTime, ev.amountCents ?? 0);
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
    ambiguous: ambiguous.toEvidence(),
  };
}

type Copies = { first: Int32Array; next: Int32Array };

/**
 * The copy that survives deduplication: of the copies that reached events.valid, the first in the
 * layer's order (lowest partition rank), or without positions the first one sent.
 */
function survivorOf(
  byEvent: Copies,
  c: number,
  ingest: IngestTimes,
  positions: ValidPositions | undefined,
): number | undefined {
  let survivor: number | undefined;
  let best = Infinity;
  for (let s = byEvent.first[c] as number; s !== -1; s = byEvent.next[s] as number) {
    if (!ingest.has(s)) continue;
    if (positions === undefined) return s;
    const rank = positions.rank.get(s) ?? Infinity;
    if (survivor === undefined || rank < best) [survivor, best] = [s, rank];
  }
  return survivor;
}

/** True when the observed copies of event c span partitions and disagree on timeliness. */
function splitAcrossPartitions(
  byEvent: Copies,
  c: number,
  ingest: IngestTimes,
  positions: ValidPositions,
  eventTime: number,
  latenessMs: number,
): boolean {
  let partition: number | undefined;
  let spread = false;
  let kinds = 0; // bit 1: a copy on time, bit 2: a copy late
  for (let s = byEvent.first[c] as number; s !== -1; s = byEvent.next[s] as number) {
    const t = ingest.get(s);
    if (t === undefined) continue;
    const p = positions.partition.get(s);
    if (partition === undefined) partition = p;
    else if (p !== partition) spread = true;
    kinds |= timeliness(eventTime, t, latenessMs) === 'late' ? 2 : 1;
  }
  return spread && kinds === 3;
}

/**
 * Indexes 0..n-1 grouped by `groupOf[i]` (0..groups-1), groups in ascending order and each in
 * index order (a counting sort: stable, no object per group). `starts[g]` is where group g begins.
 */
export function groupIndexes(
  groupOf: ArrayLike<number>,
  groups: number,
): { order: Int32Array; starts: Int32Array } {
  const starts = new Int32Array(groups + 1);
  for (let i = 0; i < groupOf.length; i++) {
    const g = (groupOf[i] as number) + 1;
    starts[g] = (starts[g] as number) + 1;
  }
  for (let g = 0; g < groups; g++)
    starts[g + 1] = (starts[g + 1] as number) + (starts[g] as number);
  const fill = starts.slice(0, groups);
  const order = new Int32Array(groupOf.length);
  for (let i = 0; i < groupOf.length; i++) {
    const g = groupOf[i] as number;
    const at = fill[g] as number;
    order[at] = i;
    fill[g] = at + 1;
  }
  return { order, starts };
}

/** 10 s tumbling windows per event type: count, sum of amount_cents (null = 0), distinct sessions. */
export function expectedWindows(runId: string, events: Counted): ExpectedAggregates<'windows'> {
  const out = new ExpectedAggregates('windows');
  const [ends, counts, sums, distinct] = out.values;
  const windowOf = new Int32Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const start = windowStartOf(events.eventTimes[i] as number);
    const id = out.add(runId, events.eventTypes[i] as string, start);
    if (counts[id] === 0) ends[id] = start + WINDOW_SIZE_MS;
    counts[id] = (counts[id] as number) + 1;
    sums[id] = (sums[id] as number) + (events.amounts[i] as number);
    windowOf[i] = id;
  }
  // Distinct sessions: each window's events together, a session counted when first met in it.
  const { order, starts } = groupIndexes(windowOf, out.size);
  const seenIn = new Int32Array(events.sessionIds.length).fill(-1);
  for (let w = 0; w < out.size; w++) {
    for (let k = starts[w] as number; k < (starts[w + 1] as number); k++) {
      const session = events.sessions[order[k] as number] as number;
      if (seenIn[session] !== w) {
        seenIn[session] = w;
        distinct[w] = (distinct[w] as number) + 1;
      }
    }
  }
  return out;
}

/** Sorts order[from..to) by event time, keeping equal times in index order. */
function sortByTime(order: Int32Array, from: number, to: number, times: number[]): void {
  if (to - from > 32) {
    // Array.prototype.sort is stable; a long session is rare enough for an array.
    const part = Array.from(order.subarray(from, to)).sort(
      (a, b) => (times[a] as number) - (times[b] as number),
    );
    order.set(part, from);
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const x = order[i] as number;
    const t = times[x] as number;
    let j = i - 1;
    for (; j >= from && (times[order[j] as number] as number) > t; j--)
      order[j + 1] = order[j] as number;
    order[j + 1] = x;
  }
}

/** Per session_id, sorted by event_time: a new session when the gap to the previous event is >= 30 s. */
export function expectedSessions(runId: string, events: Counted): ExpectedAggregates<'sessions'> {
  const out = new ExpectedAggregates('sessions');
  const [ends, counts, revenue, converted] = out.values;
  const { order, starts } = groupIndexes(events.sessions, events.sessionIds.length);
  const times = events.eventTimes;
  for (let g = 0; g < events.sessionIds.length; g++) {
    const sessionId = events.sessionIds[g] as string;
    const from = starts[g] as number;
    const to = starts[g + 1] as number;
    sortByTime(order, from, to, times);
    let id = -1;
    let prev = 0;
    for (let k = from; k < to; k++) {
      const i = order[k] as number;
      const t = times[i] as number;
      if (id === -1 || t - prev >= SESSION_GAP_MS) id = out.add(runId, sessionId, t);
      ends[id] = t;
      counts[id] = (counts[id] as number) + 1;
      if (events.eventTypes[i] === 'payment_succeeded') {
        revenue[id] = (revenue[id] as number) + (events.amounts[i] as number);
        converted[id] = 1;
      }
      prev = t;
    }
  }
  return out;
}
