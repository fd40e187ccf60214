/**
 * An independent oracle for the windows job: expected agg.windows rows, agg.sessions rows and events.late seqs as a pure
 * function of the distinct events sent (with their ingest times), and a comparison with what the three topics hold.
 */

import {
  HEADERS,
  PROBE_RUN_PREFIX,
  SESSION_GAP_MS,
  WINDOW_SIZE_MS,
  decodeSessionAggregate,
  decodeWindowAggregate,
  type SessionAggregate,
  type WindowAggregate,
} from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';

export interface SentEvent {
  seq: number;
  run_id: string;
  session_id: string;
  event_type: string;
  event_time: number;
  ingest_time: number;
  amount_cents: number | null;
}

export interface WindowExpectation {
  event_count: number;
  amount_cents_sum: number;
  distinct_sessions: number;
}
export interface SessionExpectation {
  session_end: number;
  event_count: number;
  revenue_cents: number;
  converted: boolean;
}
export interface Expected {
  late: Set<number>;
  windows: Map<string, WindowExpectation>;
  sessions: Map<string, SessionExpectation>;
}

const windowStart = (t: number): number =>
  t - (((t % WINDOW_SIZE_MS) + WINDOW_SIZE_MS) % WINDOW_SIZE_MS);

/** The lateness rule, windows and 30 s gap sessions over on-time non-probe events, from the events alone. */
export function expectedAggregates(events: SentEvent[], latenessMs: number): Expected {
  const late = new Set<number>();
  const windows = new Map<string, WindowExpectation & { sessions: Set<string> }>();
  const bySession = new Map<string, SentEvent[]>();
  for (const e of events) {
    if (e.event_time < e.ingest_time - latenessMs) {
      late.add(e.seq);
      continue;
    }
    if (e.run_id.startsWith(PROBE_RUN_PREFIX)) continue;
    const wk = `${e.run_id}|${windowStart(e.event_time)}|${e.event_type}`;
    const w = windows.get(wk) ?? {
      event_count: 0,
      amount_cents_sum: 0,
      distinct_sessions: 0,
      sessions: new Set<string>(),
    };
    w.event_count++;
    w.amount_cents_sum += e.amount_cents ?? 0;
    w.sessions.add(e.session_id);
    w.distinct_sessions = w.sessions.size;
    windows.set(wk, w);
    const sk = `${e.run_id}|${e.session_id}`;
    bySession.set(sk, [...(bySession.get(sk) ?? []), e]);
  }
  const sessions = new Map<string, SessionExpectation>();
  for (const [sk, list] of bySession) {
    list.sort((a, b) => a.event_time - b.event_time);
    let start = 0;
    let current: SessionExpectation | null = null;
    let last = 0;
    for (const e of list) {
      if (current === null || e.event_time - last >= SESSION_GAP_MS) {
        if (current) sessions.set(`${sk}|${start}`, current);
        start = e.event_time;
        current = { session_end: e.event_time, event_count: 0, revenue_cents: 0, converted: false };
      }
      current.session_end = e.event_time;
      current.event_count++;
      if (e.event_type === 'payment_succeeded') {
        current.revenue_cents += e.amount_cents ?? 0;
        current.converted = true;
      }
      last = e.event_time;
    }
    if (current) sessions.set(`${sk}|${start}`, current);
  }
  const plainWindows = new Map<string, WindowExpectation>();
  for (const [k, w] of windows)
    plainWindows.set(k, {
      event_count: w.event_count,
      amount_cents_sum: w.amount_cents_sum,
      distinct_sessions: w.distinct_sessions,
    });
  return { late, windows: plainWindows, sessions };
}

/** How one aggregate topic differs from the expectation: only each key's highest version counts. */
export interface AggregateEvidence {
  expected: number;
  observed: number;
  missing: string[];
  unexpected: string[];
  differing: { key: string; expected: unknown; observed: unknown }[];
  notFinal: string[];
  /** Two committed rows with the same key and version (a replay must never commit a version twice). */
  duplicateVersions: string[];
  undecodable: number;
}

function latest<T extends { version: number }>(
  rows: { key: string; row: T }[],
): { latest: Map<string, T>; duplicateVersions: string[] } {
  const latestRows = new Map<string, T>();
  const seen = new Set<string>();
  const duplicateVersions: string[] = [];
  for (const { key, row } of rows) {
    const kv = `${key}#${row.version}`;
    if (seen.has(kv)) duplicateVersions.push(kv);
    seen.add(kv);
    const prev = latestRows.get(key);
    if (!prev || row.version > prev.version) latestRows.set(key, row);
  }
  return { latest: latestRows, duplicateVersions };
}

export function compareWindows(
  expected: Map<string, WindowExpectation>,
  records: InRecord[],
  runId: string,
): AggregateEvidence {
  let undecodable = 0;
  const rows: { key: string; row: WindowAggregate }[] = [];
  for (const r of records) {
    const d = decodeWindowAggregate(r.value);
    if (!d.ok) {
      undecodable++;
      continue;
    }
    if (d.value.run_id !== runId) continue;
    const key = r.key?.toString() ?? '';
    if (key !== `${d.value.run_id}|${d.value.window_start}|${d.value.event_type}`) undecodable++;
    rows.push({ key, row: d.value });
  }
  const { latest: got, duplicateVersions } = latest(rows);
  const ev: AggregateEvidence = {
    expected: expected.size,
    observed: got.size,
    missing: [...expected.keys()].filter((k) => !got.has(k)),
    unexpected: [...got.keys()].filter((k) => !expected.has(k)),
    differing: [],
    notFinal: [...got].filter(([, r]) => !r.is_final).map(([k]) => k),
    duplicateVersions,
    undecodable,
  };
  for (const [k, want] of expected) {
    const r = got.get(k);
    if (!r) continue;
    const have = {
      event_count: r.event_count,
      amount_cents_sum: r.amount_cents_sum,
      distinct_sessions: r.distinct_sessions,
    };
    if (JSON.stringify(have) !== JSON.stringify(want))
      ev.differing.push({ key: k, expected: want, observed: have });
  }
  return ev;
}

export function compareSessions(
  expected: Map<string, SessionExpectation>,
  records: InRecord[],
  runId: string,
): AggregateEvidence & { retracted: number } {
  let undecodable = 0;
  const rows: { key: string; row: SessionAggregate }[] = [];
  for (const r of records) {
    const d = decodeSessionAggregate(r.value);
    if (!d.ok) {
      undecodable++;
      continue;
    }
    if (d.value.run_id !== runId) continue;
    const key = r.key?.toString() ?? '';
    if (key !== `${d.value.run_id}|${d.value.session_id}|${d.value.session_start}`) undecodable++;
    rows.push({ key, row: d.value });
  }
  const { latest: all, duplicateVersions } = latest(rows);
  const got = new Map([...all].filter(([, r]) => !r.retracted));
  const ev = {
    expected: expected.size,
    observed: got.size,
    missing: [...expected.keys()].filter((k) => !got.has(k)),
    unexpected: [...got.keys()].filter((k) => !expected.has(k)),
    differing: [] as AggregateEvidence['differing'],
    notFinal: [...all].filter(([, r]) => !r.is_final).map(([k]) => k),
    duplicateVersions,
    undecodable,
    retracted: all.size - got.size,
  };
  for (const [k, want] of expected) {
    const r = got.get(k);
    if (!r) continue;
    const have = {
      session_end: r.session_end,
      event_count: r.event_count,
      revenue_cents: r.revenue_cents,
      converted: r.converted,
    };
    if (JSON.stringify(have) !== JSON.stringify(want))
      ev.differing.push({ key: k, expected: want, observed: have });
  }
  return ev;
}

/** events.late against the expected late seqs: each exactly once, and its bytes, key and headers as sent. */
export interface LateEvidence {
  expected: number;
  observed: number;
  missing: number[];
  duplicated: number[];
  unexpected: number[];
  altered: number[];
}

export function compareLate(
  expectedLate: Set<number>,
  sent: Map<number, { key: Buffer | string | null; value: Buffer | null }>,
  records: InRecord[],
  runIds: Set<string>,
): LateEvidence {
  const counts = new Map<number, number>();
  const unexpected: number[] = [];
  const altered: number[] = [];
  let observed = 0;
  for (const r of records) {
    if (!runIds.has(r.headers[HEADERS.runId]?.toString() ?? '')) continue;
    observed++;
    const seq = Number(r.headers[HEADERS.seq]?.toString());
    counts.set(seq, (counts.get(seq) ?? 0) + 1);
    if (!expectedLate.has(seq)) unexpected.push(seq);
    const s = sent.get(seq);
    if (
      !s ||
      Buffer.compare(r.value ?? Buffer.alloc(0), s.value ?? Buffer.alloc(0)) !== 0 ||
      r.key?.toString() !== (s.key === null ? undefined : String(s.key))
    )
      altered.push(seq);
  }
  return {
    expected: expectedLate.size,
    observed,
    missing: [...expectedLate].filter((s) => !counts.has(s)),
    duplicated: [...counts].filter(([, n]) => n > 1).map(([s]) => s),
    unexpected,
    altered,
  };
}

/** The first few of each list, for a readable failure message; an exact layer summarizes to all zeros. */
export function brief(e: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e))
    out[k] = Array.isArray(v) ? { n: v.length, first: v.slice(0, 3) } : v;
  return out;
}

export function isExact(e: AggregateEvidence | LateEvidence): boolean {
  const lists = Object.values(e).filter(Array.isArray) as unknown[][];
  return lists.every((l) => l.length === 0) && (!('undecodable' in e) || e.undecodable === 0);
}
