import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SESSION_GAP_MS, timeliness, type LedgerRow } from '@clickstream/contracts';
import { readLedgerSync } from '@clickstream/ledger';
import { capturingSink, options, RATIOS, silentLogger } from '../test/helpers';
import { EDGE_MS } from './faults';
import { mergePlan } from './merges';
import { run, type RunOptions } from './run';

jest.setTimeout(120_000);

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'generator-timed-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const L = 5000;
// The issue #12 fault mix on top of the usual one.
const TIMED = { ...RATIOS, lateness_edge: 0.03, session_merge: 0.01 };

let n = 0;
async function rowsOf(over: Partial<RunOptions> = {}): Promise<LedgerRow[]> {
  const resultsDir = path.join(dir, `r${n++}`);
  const summary = await run({
    // 100 events/s: 60 s of event time, room for merges (each spans more than the 30 s gap).
    options: options({ resultsDir, ratios: TIMED, count: 6000, rate: 100, ...over }),
    sink: capturingSink(),
    logger: silentLogger,
    clock: Date.now,
    sleep: () => Promise.resolve(),
  });
  return readLedgerSync(summary.ledger);
}

/** Sessions by the 30 s gap rule over the given event times. */
function sessionsOf(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted.filter((t, i) => i === 0 || t - (sorted[i - 1] as number) >= SESSION_GAP_MS).length;
}

describe('issue #12 fault mix', () => {
  let rows: LedgerRow[];
  beforeAll(async () => {
    rows = await rowsOf();
  });

  it('is deterministic for a seed and keeps the exact count', async () => {
    expect(rows).toHaveLength(6000);
    expect(await rowsOf()).toEqual(rows);
  });

  it('puts lateness_edge events within 50 ms of L, on both sides of the rule', () => {
    const edge = rows.filter((r) => r.fault === 'lateness_edge');
    expect(edge.length).toBeGreaterThan(100);
    for (const r of edge) {
      const behind = r.send_time - (r.event_time as number);
      expect(Math.abs(behind - L)).toBeLessThanOrEqual(EDGE_MS);
      expect(r.expected_timeliness).toBe(timeliness(r.event_time as number, r.send_time, L));
    }
    const sides = new Set(edge.map((r) => r.expected_timeliness));
    expect(sides).toEqual(new Set(['on_time', 'late']));
  });

  it('merges two sessions of one session id with an on-time out-of-order event (recorded as out_of_order)', () => {
    const merged = rows.filter((r) => r.session_id?.startsWith('merge-'));
    const bridges = merged.filter((r) => r.fault === 'out_of_order');
    expect(bridges.length).toBeGreaterThan(10);
    for (const c of bridges) {
      const same = rows.filter((r) => r.session_id === c.session_id);
      expect(same).toHaveLength(3);
      const [a, b] = same.filter((r) => r.seq !== c.seq) as [LedgerRow, LedgerRow];
      expect(a.seq < b.seq && b.seq < c.seq).toBe(true);
      const t = (r: LedgerRow) => r.event_time as number;
      expect(sessionsOf([t(a), t(b)])).toBe(2);
      expect(sessionsOf([t(a), t(b), t(c)])).toBe(1);
      expect(t(c)).toBeLessThan(t(b)); // out of order
      expect(c.expected_timeliness).toBe('on_time');
      expect([a.fault, b.fault]).toEqual(['none', 'none']);
    }
  });

  it('has late events of sessions that are still open, and payments inside sessions', () => {
    const late = rows.filter((r) => r.fault === 'late');
    const open = late.filter((l) =>
      rows.some((r) => r.session_id === l.session_id && r.seq > l.seq && r.fault === 'none'),
    );
    expect(open.length).toBeGreaterThan(0);
    const payments = rows.filter((r) => r.event_type === 'payment_succeeded' && r.fault === 'none');
    expect(payments.length).toBeGreaterThan(0);
    const inSession = payments.filter(
      (p) => rows.filter((r) => r.session_id === p.session_id).length > 1,
    );
    expect(inSession.length).toBe(payments.length);
  });

  it('leaves lateness_edge events without duplicates', () => {
    const edgeSeqs = new Set(rows.filter((r) => r.fault === 'lateness_edge').map((r) => r.seq));
    expect(
      rows.filter((r) => r.fault === 'duplicate' && edgeSeqs.has(r.duplicate_of as number)),
    ).toEqual([]);
  });
});

describe('mergePlan', () => {
  it('keeps the bridge on time with 1 s to spare at L = 5 s', () => {
    const p = mergePlan(0, 0, 5000);
    expect(p.secondDue - 0).toBeGreaterThanOrEqual(SESSION_GAP_MS);
    expect(p.bridgeDue - p.bridgeEventTime).toBeLessThanOrEqual(5000 - 1000);
    expect(p.bridgeEventTime).toBe(SESSION_GAP_MS - 1);
  });
});
