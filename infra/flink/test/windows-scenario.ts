/**
 * Seeded events for the windows job's integration tests, written straight to a test copy of events.clean with chosen
 * event and ingest times: disorder inside L, events at L and 1 ms past it, minutes-late events, sessions that an
 * out-of-order event merges, payments inside sessions, probe events, and sessions to bridge after their finality.
 */

import { randomUUID } from 'crypto';
import { EVENT_TYPES, HEADERS, encodeEvent, type ClickEvent } from '@clickstream/contracts';
import type { OutRecord } from '@clickstream/kafka-tx';
import { PARTITIONS, prng } from './harness';
import type { SentEvent } from './windows-oracle';

export const LATENESS_MS = 5000;

export interface Scenario {
  runId: string;
  topic: string;
  rand: () => number;
  nextSeq: number;
  /** Every distinct event sent so far (the oracle's input). */
  sent: SentEvent[];
  records: Map<number, OutRecord>;
}

export function newScenario(topic: string, runId: string, seed: number): Scenario {
  return { runId, topic, rand: prng(seed), nextSeq: 0, sent: [], records: new Map() };
}

function partitionOf(sessionId: string): number {
  let h = 0;
  for (const c of sessionId) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % PARTITIONS;
}

/** One event; `partition` defaults to the session's. */
export function makeEvent(
  s: Scenario,
  runId: string,
  sessionId: string,
  type: ClickEvent['event_type'],
  eventTime: number,
  ingestTime: number,
  partition = partitionOf(sessionId),
): OutRecord {
  const seq = s.nextSeq++;
  const payment = type === 'payment_succeeded' || type === 'payment_failed';
  const event: ClickEvent = {
    event_id: randomUUID(),
    seq,
    run_id: runId,
    event_type: type,
    event_time: eventTime,
    session_id: sessionId,
    user_id: null,
    page: `/p/${seq % 50}`,
    product_id: type === 'page_view' ? null : `prod-${seq % 97}`,
    quantity: type === 'page_view' ? null : 1,
    amount_cents: payment ? 100 + Math.floor(s.rand() * 10000) : null,
    currency: payment ? 'EUR' : null,
    device: 'mobile',
    ingest_time: ingestTime,
  };
  const record: OutRecord = {
    topic: s.topic,
    partition,
    key: sessionId,
    value: encodeEvent(event),
    headers: { [HEADERS.seq]: String(seq), [HEADERS.runId]: runId },
    timestamp: ingestTime,
  };
  s.sent.push({
    seq,
    run_id: runId,
    session_id: sessionId,
    event_type: type,
    event_time: eventTime,
    ingest_time: ingestTime,
    amount_cents: event.amount_cents ?? null,
  });
  s.records.set(seq, record);
  return record;
}

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)] as T;
}

/** An ingest delay with the rule's edges: mostly inside L, some exactly at L, 1 ms past, +-50 ms, minutes late, negative. */
function ingestDelay(rand: () => number): number {
  const r = rand();
  if (r < 0.66) return Math.floor(rand() * 3000);
  if (r < 0.74) return LATENESS_MS; // on time, exactly at the boundary
  if (r < 0.82) return LATENESS_MS + 1; // late by 1 ms
  if (r < 0.88) return LATENESS_MS - 50 + Math.floor(rand() * 101); // within 50 ms either side
  if (r < 0.93) return 120_000 + Math.floor(rand() * 180_000); // minutes late
  return -Math.floor(rand() * 2000); // the client clock ahead of the broker
}

export interface SessionPlan {
  sessionId: string;
  /** [start, end] of each planned sub-session; gaps between them are 40-55 s, so one event can bridge two. */
  spans: [number, number][];
}

/**
 * `sessions` sessions whose events span [base, base + spanMs): each has 2-3 sub-sessions split by 40-55 s gaps, events
 * 1-8 s apart, random types (payments included). A few get an out-of-order bridge inside L right after a sub-session
 * starts (merges while the job runs). Returns the records in ingest-time order (per partition order, as Kafka keeps it).
 */
export function generate(
  s: Scenario,
  base: number,
  sessions: number,
  prefix: string,
  partitions?: number[],
): { records: OutRecord[]; plans: SessionPlan[] } {
  const out: OutRecord[] = [];
  const plans: SessionPlan[] = [];
  for (let i = 0; i < sessions; i++) {
    const sessionId = `${prefix}-${i}`;
    const partition = partitions ? pick(s.rand, partitions) : partitionOf(sessionId);
    let t = base + Math.floor(s.rand() * 20_000);
    const spans: [number, number][] = [];
    const parts = 2 + Math.floor(s.rand() * 2);
    for (let p = 0; p < parts; p++) {
      const start = t;
      const n = 3 + Math.floor(s.rand() * 8);
      for (let k = 0; k < n; k++) {
        const type =
          k === n - 1 && s.rand() < 0.4 ? 'payment_succeeded' : pick(s.rand, EVENT_TYPES);
        out.push(makeEvent(s, s.runId, sessionId, type, t, t + ingestDelay(s.rand), partition));
        if (k < n - 1) t += 1000 + Math.floor(s.rand() * 7000);
      }
      spans.push([start, t]);
      if (p < parts - 1) {
        // 30-33 s gaps get an in-L out-of-order bridge: event time 29 s after this sub-session's end, ingested 1 s
        // after the next one starts (on time: 29 s >= gap + 1 s - L). Wider gaps are left for `bridges`.
        const inL = s.rand() < 0.3;
        const gap = inL
          ? 30_000 + Math.floor(s.rand() * 3000)
          : 40_000 + Math.floor(s.rand() * 15_000);
        if (inL)
          out.push(
            makeEvent(s, s.runId, sessionId, 'page_view', t + 29_000, t + gap + 1000, partition),
          );
        t += gap;
      }
    }
    plans.push({ sessionId, spans });
  }
  out.sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0));
  return { records: out, plans };
}

/** Out-of-order bridges between each plan's first two sub-sessions, on time by the rule (ingest 1 s after event time). */
export function bridges(
  s: Scenario,
  plans: SessionPlan[],
  partitionFor?: (sessionId: string) => number,
): OutRecord[] {
  const out: OutRecord[] = [];
  for (const plan of plans) {
    const [a, b] = plan.spans;
    if (!a || !b || b[0] - a[1] >= 60_000) continue;
    const at = a[1] + Math.floor((b[0] - a[1]) / 2);
    out.push(
      makeEvent(
        s,
        s.runId,
        plan.sessionId,
        'add_to_cart',
        at,
        at + 1000,
        partitionFor?.(plan.sessionId) ?? partitionOf(plan.sessionId),
      ),
    );
  }
  return out;
}

/**
 * Probe events on every partition at ingest time `at` (they move the watermark and never count), plus one late probe
 * (event_time 1 ms past L), which must still go to events.late.
 */
export function probes(s: Scenario, probeRun: string, at: number): OutRecord[] {
  const out: OutRecord[] = [];
  for (let p = 0; p < PARTITIONS; p++)
    out.push(makeEvent(s, probeRun, 'probe', 'page_view', at, at, p));
  out.push(makeEvent(s, probeRun, 'probe', 'page_view', at - LATENESS_MS - 1, at, 0));
  return out;
}

export function maxTime(s: Scenario): number {
  return s.sent.reduce((m, e) => Math.max(m, e.event_time, e.ingest_time), 0);
}
