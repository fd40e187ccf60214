/**
 * What the dashboard must show for a seeded run, computed from the ledger alone: the funnel and the
 * revenue per minute. A pure function of the ledger rows, so a test can hold the dashboard's
 * answers against it. (Top products cannot be derived: the ledger carries no product_id.)
 *
 * The events counted are the distinct (run_id, event_id) of acknowledged valid sends, i.e. what
 * the clean layer holds when it is exact; a send whose delivery failed makes the answer uncertain.
 */

import { isProbeRun, timeliness, type LedgerRow } from '@clickstream/contracts';
import { FUNNEL_STEPS, type RevenueMinute } from '@clickstream/warehouse';

type Row = Pick<
  LedgerRow,
  | 'run_id'
  | 'event_id'
  | 'event_type'
  | 'session_id'
  | 'event_time'
  | 'amount_cents'
  | 'expected_fate'
  | 'expected_timeliness'
  | 'delivery'
>;

export interface ExpectedQuery {
  fromMs: number;
  toMs: number;
  windowMs: number;
  /**
   * The recorded ingest time (broker LogAppendTime) of an event, when known: on time or late is
   * decided by it (DESIGN.md), and on a loaded broker it can trail the ledger's send time by
   * seconds. Without it, the ledger's expected_timeliness (from the send time) is used.
   */
  ingestTimeOf?: (runId: string, eventId: string) => number | undefined;
}

export interface Expected {
  /** Sessions reaching at least each step, in FUNNEL_STEPS order. */
  funnel: number[];
  revenue: RevenueMinute[];
  /** The same from on-time events only: what the window aggregates (agg_windows) count. */
  revenueOnTime: RevenueMinute[];
  /** Valid sends whose delivery failed within the range: each may or may not be in the layer. */
  uncertain: number;
}

interface Ev {
  t: number;
  step: number;
}

/** windowFunnel's level: steps in order, each within windowMs (inclusive) of the latest step-1 event that started the chain. */
export function funnelLevel(events: readonly Ev[], windowMs: number): number {
  const sorted = [...events].sort((a, b) => a.t - b.t || a.step - b.step);
  const start = new Array<number>(FUNNEL_STEPS.length).fill(-1);
  for (const e of sorted) {
    if (e.step === 0) start[0] = e.t;
    else {
      const prev = start[e.step - 1] as number;
      if (prev >= 0 && e.t <= prev + windowMs) {
        start[e.step] = prev;
        if (e.step === FUNNEL_STEPS.length - 1) return FUNNEL_STEPS.length;
      }
    }
  }
  for (let k = start.length; k > 0; k--) if ((start[k - 1] as number) >= 0) return k;
  return 0;
}

export function expectedFromLedger(rows: Iterable<Row>, q: ExpectedQuery): Expected {
  const seen = new Set<string>();
  const sessions = new Map<string, Ev[]>();
  const minutes = new Map<number, RevenueMinute>();
  const onTime = new Map<number, RevenueMinute>();
  let uncertain = 0;
  const stepOf = new Map<string, number>(FUNNEL_STEPS.map((s, i) => [s, i]));
  for (const r of rows) {
    if (r.expected_fate !== 'valid' || r.event_id === null || r.event_time === null) continue;
    if (isProbeRun(r.run_id) || r.event_time < q.fromMs || r.event_time >= q.toMs) continue;
    if (r.delivery !== 'acked') {
      if (r.delivery === 'failed') uncertain++;
      continue;
    }
    const key = `${r.run_id}\u0000${r.event_id}`;
    if (seen.has(key)) continue; // an injected duplicate: the same event, counted once
    seen.add(key);
    const step = r.event_type === null ? undefined : stepOf.get(r.event_type);
    if (step !== undefined && r.session_id !== null) {
      const s = `${r.run_id}\u0000${r.session_id}`;
      const list = sessions.get(s) ?? [];
      list.push({ t: r.event_time, step });
      sessions.set(s, list);
    }
    if (r.event_type === 'payment_succeeded') {
      const minute = Math.floor(r.event_time / 60_000) * 60_000;
      const into = (map: Map<number, RevenueMinute>): void => {
        const m = map.get(minute) ?? { minute, revenueCents: 0, payments: 0 };
        m.revenueCents += r.amount_cents ?? 0;
        m.payments += 1;
        map.set(minute, m);
      };
      into(minutes);
      const ingest = q.ingestTimeOf?.(r.run_id, r.event_id);
      const onTimeNow =
        ingest === undefined
          ? r.expected_timeliness === 'on_time'
          : timeliness(r.event_time, ingest) === 'on_time';
      if (onTimeNow) into(onTime);
    }
  }
  const funnel = new Array<number>(FUNNEL_STEPS.length).fill(0);
  for (const events of sessions.values()) {
    const level = funnelLevel(events, q.windowMs);
    for (let k = 0; k < level; k++) funnel[k] = (funnel[k] as number) + 1;
  }
  const byMinute = (m: Map<number, RevenueMinute>): RevenueMinute[] =>
    [...m.values()].sort((a, b) => a.minute - b.minute);
  return { funnel, revenue: byMinute(minutes), revenueOnTime: byMinute(onTime), uncertain };
}
