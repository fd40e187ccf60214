import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  HEADERS,
  LedgerRowSchema,
  REJECT_REASONS,
  decodeEvent,
  timeliness,
  type LedgerRow,
} from '@clickstream/contracts';
import { readLedgerSync, readManifest } from '@clickstream/ledger';
import { capturingSink, options, RATIOS, silentLogger } from '../test/helpers';
import { run, type RunOptions } from './run';
import { MALFORMATIONS, type Malformation } from './poison';
import type { SinkRecord } from './sink';

jest.setTimeout(120_000);

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'generator-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface DryRun {
  rows: LedgerRow[];
  records: SinkRecord[];
  ledgerBytes: Buffer;
  manifestText: string;
  summary: Awaited<ReturnType<typeof run>>;
}

let n = 0;
async function dryRun(over: Partial<RunOptions> = {}): Promise<DryRun> {
  const resultsDir = path.join(dir, `r${n++}`);
  const sink = capturingSink();
  const summary = await run({
    options: options({ resultsDir, ...over }),
    sink,
    logger: silentLogger,
    clock: Date.now,
    sleep: () => Promise.resolve(),
  });
  return {
    rows: readLedgerSync(summary.ledger),
    records: sink.records,
    ledgerBytes: fs.readFileSync(summary.ledger),
    manifestText: fs.readFileSync(summary.manifest, 'utf8'),
    summary,
  };
}

function wire(records: SinkRecord[]): Buffer {
  return Buffer.concat(
    records.flatMap((r) => [Buffer.from(JSON.stringify([r.key, r.headers, r.timestamp])), r.value]),
  );
}

describe('determinism', () => {
  let a: DryRun;
  beforeAll(async () => {
    a = await dryRun();
  });

  it('same seed and options: the same records and the same ledger, byte for byte', async () => {
    const b = await dryRun();
    expect(b.records.length).toBe(a.records.length);
    expect(wire(b.records).equals(wire(a.records))).toBe(true);
    expect(b.ledgerBytes.equals(a.ledgerBytes)).toBe(true);
    expect(b.manifestText).toBe(a.manifestText);
  });

  it('records the lateness bound and the dedup TTL it planned against in the manifest', () => {
    const m = JSON.parse(a.manifestText) as Record<string, unknown>;
    expect(m).toMatchObject({ lateness_ms: 5000, dedup_ttl_ms: 3_600_000 });
  });

  it('a different seed gives different events and different faults', async () => {
    const c = await dryRun({ seed: 43 });
    expect(wire(c.records).equals(wire(a.records))).toBe(false);
    expect(c.rows.map((r) => r.event_id)).not.toEqual(a.rows.map((r) => r.event_id));
    expect(c.rows.map((r) => r.fault)).not.toEqual(a.rows.map((r) => r.fault));
  });

  it('a different run id gives different event ids (two runs into one topic never collide)', async () => {
    const c = await dryRun({ runId: 'gen-test-2' });
    const ids = new Set(a.rows.map((r) => r.event_id).filter((id) => id !== null));
    expect(c.rows.some((r) => r.event_id !== null && ids.has(r.event_id))).toBe(false);
  });
});

describe('a seeded dry run', () => {
  let d: DryRun;
  beforeAll(async () => {
    // 200/s over 150 s: long enough for duplicates minutes apart.
    d = await dryRun({ count: 30_000, rate: 200 });
  });

  it('writes one valid ledger row per send, seq 0..n-1, every record carrying cs-seq and cs-run-id', () => {
    expect(d.rows).toHaveLength(30_000);
    expect(d.records).toHaveLength(30_000);
    expect(
      d.rows.every(
        (r, i) => r.seq === i && LedgerRowSchema.safeParse(r).success && r.delivery === 'not_sent',
      ),
    ).toBe(true);
    expect(
      d.records.every(
        (r, i) => r.headers[HEADERS.seq] === String(i) && r.headers[HEADERS.runId] === 'gen-test',
      ),
    ).toBe(true);
    expect(
      d.records.every((r, i) => r.timestamp === d.rows[i]!.send_time && r.key === d.rows[i]!.key),
    ).toBe(true);
    const m = readManifest(d.summary.manifest);
    expect(m.counts.sends).toBe(30_000);
    expect(m.counts.not_sent).toBe(30_000);
    expect(Object.values(m.counts.by_fault).reduce((x, y) => x + y, 0)).toBe(30_000);
  });

  it('the decoder agrees with the ledger on every record: fate, reason, event, version and timeliness', () => {
    const disagreements: string[] = [];
    d.records.forEach((rec, i) => {
      const row = d.rows[i]!;
      const res = decodeEvent(rec.value, { ingestTime: rec.timestamp });
      if (row.expected_fate === 'poison') {
        if (res.ok || res.reason !== row.expected_reason)
          disagreements.push(
            `seq ${row.seq} ${row.fault}: ledger ${row.expected_reason}, decoder ${res.ok ? 'ok' : res.reason}`,
          );
        return;
      }
      if (!res.ok) {
        disagreements.push(
          `seq ${row.seq} ${row.fault}: ledger valid, decoder ${res.reason} (${res.detail})`,
        );
        return;
      }
      const e = res.event;
      const payloadSeq = row.duplicate_of ?? row.seq;
      const same =
        e.event_id === row.event_id &&
        e.seq === payloadSeq &&
        e.event_type === row.event_type &&
        e.session_id === row.session_id &&
        e.event_time === row.event_time &&
        e.amount_cents === row.amount_cents &&
        res.version === row.schema_version &&
        timeliness(e.event_time, rec.timestamp, 5000) === row.expected_timeliness;
      if (!same)
        disagreements.push(
          `seq ${row.seq}: decoded ${JSON.stringify(e)} vs ledger ${JSON.stringify(row)}`,
        );
    });
    expect(disagreements.slice(0, 5)).toEqual([]);
  });

  it('injects every fault kind near its configured ratio', () => {
    const total = d.rows.length;
    for (const [fault, ratio] of Object.entries(RATIOS)) {
      const share = d.rows.filter((r) => r.fault === fault).length / total;
      // 4 standard deviations of a binomial share, plus a little for the end-of-run duplicate cap.
      const tolerance = 4 * Math.sqrt((ratio * (1 - ratio)) / total) + 0.002;
      expect({ fault, share: Math.abs(share - ratio) <= tolerance ? 'ok' : share }).toEqual({
        fault,
        share: 'ok',
      });
    }
  });

  it('duplicates repeat an earlier acknowledged-or-not send: same event id, key and bytes, seconds or minutes later', () => {
    const dups = d.rows.filter((r) => r.fault === 'duplicate');
    expect(dups.length).toBeGreaterThan(0);
    const gaps: number[] = [];
    for (const dup of dups) {
      const orig = d.rows[dup.duplicate_of!]!;
      expect(orig.seq).toBeLessThan(dup.seq);
      expect(orig.fault === 'none' || orig.fault === 'out_of_order' || orig.fault === 'late').toBe(
        true,
      );
      expect([dup.event_id, dup.key]).toEqual([orig.event_id, orig.key]);
      expect(d.records[dup.seq]!.value.equals(d.records[orig.seq]!.value)).toBe(true);
      gaps.push(dup.send_time - orig.send_time);
    }
    expect(gaps.some((g) => g < 30_000)).toBe(true);
    expect(gaps.some((g) => g >= 60_000)).toBe(true);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(5 * 60_000);
    // A count-bounded run sends every scheduled duplicate within the count.
    expect(d.summary.unsent_duplicates).toBe(0);
  });

  it('out-of-order events are on time, late events are late, by the lateness rule', () => {
    const ooo = d.rows.filter((r) => r.fault === 'out_of_order');
    const late = d.rows.filter((r) => r.fault === 'late');
    expect(
      ooo.every((r) => r.expected_timeliness === 'on_time' && r.event_time! < r.send_time),
    ).toBe(true);
    expect(
      late.every((r) => r.expected_timeliness === 'late' && r.send_time - r.event_time! >= 60_000),
    ).toBe(true);
    expect(
      d.rows.filter((r) => r.fault === 'none').every((r) => r.expected_timeliness === 'on_time'),
    ).toBe(true);
  });

  it('poison covers every kind and reason, and random bytes never start like single-object encoding', () => {
    const reasons = new Set(
      d.rows.filter((r) => r.fault === 'poison_contract').map((r) => r.expected_reason),
    );
    expect([...reasons].sort()).toEqual([
      'absurd_event_time',
      'invalid_field',
      'invalid_quantity',
      'missing_amount',
      'missing_product',
      'negative_amount',
      'unknown_currency',
    ]);
    const random = d.rows.filter((r) => r.fault === 'poison_random_bytes');
    expect(
      random.every(
        (r) => d.records[r.seq]!.value[0] !== 0xc3 && d.records[r.seq]!.value.length > 0,
      ),
    ).toBe(true);
    expect(random.every((r) => r.key === null && r.event_id === null)).toBe(true);
  });

  it('produces every reason of the closed list, as the front door decodes each poison body', () => {
    const decoded = new Map<string, number>();
    for (const row of d.rows) {
      if (row.expected_fate !== 'poison') continue;
      const rec = d.records[row.seq]!;
      const res = decodeEvent(rec.value, { ingestTime: rec.timestamp });
      const got = res.ok ? 'valid' : res.reason;
      decoded.set(got, (decoded.get(got) ?? 0) + 1);
    }
    expect([...decoded.keys()].sort()).toEqual([...REJECT_REASONS].sort());
    // Empty means zero bytes, not null: the record is produced with an empty value.
    const empty = d.rows.filter((r) => r.expected_reason === 'empty');
    expect(empty.every((r) => d.records[r.seq]!.value.length === 0 && r.event_id === null)).toBe(
      true,
    );
    expect(
      d.rows
        .filter((r) => r.fault === 'poison_malformed')
        .every((r) => MALFORMATIONS.includes(r.expected_reason as Malformation)),
    ).toBe(true);
  });

  it('mixes schema versions: some valid events in v1, most in v2', () => {
    const valid = d.rows.filter((r) => r.expected_fate === 'valid');
    const v1 = valid.filter((r) => r.schema_version === 1).length / valid.length;
    expect(v1).toBeGreaterThan(0.1);
    expect(v1).toBeLessThan(0.35);
  });

  it('simulates a funnel: every event type, keyed by session, with positive amounts on money events', () => {
    const valid = d.rows.filter((r) => r.expected_fate === 'valid');
    const types = new Set(valid.map((r) => r.event_type));
    expect(types.size).toBe(7);
    const pays = valid.filter((r) => r.event_type === 'payment_succeeded');
    const views = valid.filter((r) => r.event_type === 'page_view');
    expect(views.length).toBeGreaterThan(pays.length * 3);
    expect(pays.every((r) => r.amount_cents! > 0)).toBe(true);
    expect(valid.every((r) => r.key === r.session_id)).toBe(true);
  });
});

describe('run bounds', () => {
  it('a timed run sends the duplicates due after its end right after it, never losing one', async () => {
    const d = await dryRun({ count: null, durationMs: 4000, maxDuplicateDelayMs: 120_000 });
    const planned = 4000;
    expect(d.rows.length).toBeGreaterThan(planned);
    expect(d.rows.slice(planned).every((r) => r.fault === 'duplicate')).toBe(true);
    expect(d.summary.unsent_duplicates).toBe(0);
    const scheduled = d.rows.filter((r) => r.fault === 'duplicate').map((r) => r.duplicate_of);
    expect(new Set(scheduled).size).toBe(scheduled.length);
  });

  it('with no faults configured, sends only clean on-time events', async () => {
    const zero = Object.fromEntries(Object.keys(RATIOS).map((k) => [k, 0])) as typeof RATIOS;
    const d = await dryRun({ count: 2000, ratios: zero });
    expect(d.rows.every((r) => r.fault === 'none' && r.expected_timeliness === 'on_time')).toBe(
      true,
    );
  });
});
