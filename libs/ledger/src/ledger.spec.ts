import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import fc from 'fast-check';
import {
  DELIVERY_STATUSES,
  EVENT_TYPES,
  FAULT_KINDS,
  REJECT_REASONS,
  type LedgerRow,
} from '@clickstream/contracts';
import { LedgerWriter, iterateLedger, readLedger, readLedgerSync, writeLedger } from './index';

jest.setTimeout(60_000);

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function row(seq: number, over: Partial<LedgerRow> = {}): LedgerRow {
  return {
    run_id: 'run-1',
    seq,
    event_id: '3b1f7a2c-1234-4abc-8def-0123456789ab',
    event_type: 'add_to_cart',
    session_id: 'sess-1',
    key: 'sess-1',
    event_time: 1_764_000_000_000 + seq,
    amount_cents: 1999,
    schema_version: 2,
    send_time: 1_764_000_000_100 + seq,
    fault: 'none',
    duplicate_of: null,
    expected_fate: 'valid',
    expected_reason: null,
    expected_timeliness: 'on_time',
    delivery: 'acked',
    partition: 3,
    offset: 123_456_789_012,
    delivery_error: null,
    ...over,
  };
}

const rowArb: fc.Arbitrary<LedgerRow> = fc.record({
  run_id: fc.string({ minLength: 1, maxLength: 12 }),
  seq: fc.nat(),
  event_id: fc.option(fc.uuid(), { nil: null }),
  event_type: fc.option(fc.constantFrom(...EVENT_TYPES), { nil: null }),
  session_id: fc.option(fc.string(), { nil: null }),
  key: fc.option(fc.string(), { nil: null }),
  event_time: fc.option(fc.nat({ max: 2 ** 50 }), { nil: null }),
  amount_cents: fc.option(fc.integer({ min: -1e12, max: 1e12 }), { nil: null }),
  schema_version: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
  send_time: fc.nat({ max: 2 ** 50 }),
  fault: fc.constantFrom(...FAULT_KINDS),
  duplicate_of: fc.option(fc.nat(), { nil: null }),
  expected_fate: fc.constantFrom('valid' as const, 'poison' as const),
  expected_reason: fc.option(fc.constantFrom(...REJECT_REASONS), { nil: null }),
  expected_timeliness: fc.option(fc.constantFrom('on_time' as const, 'late' as const), {
    nil: null,
  }),
  delivery: fc.constantFrom(...DELIVERY_STATUSES),
  partition: fc.option(fc.nat({ max: 1000 }), { nil: null }),
  offset: fc.option(fc.nat({ max: 2 ** 50 }), { nil: null }),
  delivery_error: fc.option(fc.string(), { nil: null }),
});

describe('ledger file', () => {
  it('round-trips every field, nulls included, across several batches', async () => {
    const rows = [
      row(0),
      row(1, {
        fault: 'poison_random_bytes',
        event_id: null,
        event_type: null,
        session_id: null,
        key: null,
        event_time: null,
        amount_cents: null,
        schema_version: null,
        expected_fate: 'poison',
        expected_reason: 'bad_magic',
        expected_timeliness: null,
      }),
      row(2, {
        delivery: 'failed',
        partition: null,
        offset: null,
        delivery_error: 'Local: Message timed out',
      }),
      row(3, {
        fault: 'duplicate',
        duplicate_of: 0,
        amount_cents: -5,
        expected_timeliness: 'late',
      }),
      row(4, { delivery: 'not_sent', partition: null, offset: null, key: 'ключ ✓' }),
    ];
    const file = path.join(dir, 'a', 'ledger.arrow');
    const w = LedgerWriter.open(file, { batchRows: 2 });
    w.appendAll(rows);
    expect(w.rows).toBe(5);
    await expect(w.close()).resolves.toEqual({ path: file, rows: 5 });
    expect(await readLedger(file)).toEqual(rows);
    expect(readLedgerSync(file)).toEqual(rows);
    const seqs: number[] = [];
    for await (const r of iterateLedger(file)) seqs.push(r.seq);
    expect(seqs).toEqual([0, 1, 2, 3, 4]);
  });

  it('an empty ledger is a readable file with zero rows', async () => {
    const file = path.join(dir, 'empty.arrow');
    await writeLedger(file, []);
    expect(fs.statSync(file).size).toBeGreaterThan(0);
    expect(await readLedger(file)).toEqual([]);
    expect(readLedgerSync(file)).toEqual([]);
  });

  it('round-trips arbitrary valid rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        async (rows, batchRows) => {
          const file = path.join(dir, `p-${Math.random()}.arrow`);
          await writeLedger(file, rows, { batchRows });
          expect(await readLedger(file)).toEqual(rows);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses a row that breaks the ledger schema, naming the field', () => {
    const w = LedgerWriter.open(path.join(dir, 'bad.arrow'));
    expect(() => w.append({ ...row(0), fault: 'gremlins' } as unknown as LedgerRow)).toThrow(
      /fault/,
    );
    expect(() => w.append({ ...row(0), seq: -1 })).toThrow(/seq/);
    return w.close();
  });

  it('refuses to append after close', async () => {
    const w = LedgerWriter.open(path.join(dir, 'c.arrow'));
    await w.close();
    expect(() => w.append(row(0))).toThrow(/closed/);
  });

  it('a writer killed between batches leaves the earlier batches readable; a cut inside a batch throws', async () => {
    const two = path.join(dir, 'two.arrow');
    const three = path.join(dir, 'three.arrow');
    await writeLedger(two, [row(0), row(1)], { batchRows: 1 });
    await writeLedger(three, [row(0), row(1), row(2)], { batchRows: 1 });
    const full = fs.readFileSync(three);
    // The 2-batch file minus its 8-byte end-of-stream marker is a prefix of the 3-batch file.
    const boundary = fs.statSync(two).size - 8;
    expect(full.subarray(0, boundary).equals(fs.readFileSync(two).subarray(0, boundary))).toBe(
      true,
    );
    const cut = path.join(dir, 'cut.arrow');
    fs.writeFileSync(cut, full.subarray(0, boundary));
    expect(readLedgerSync(cut).map((r) => r.seq)).toEqual([0, 1]);
    fs.writeFileSync(cut, full.subarray(0, boundary + 40));
    expect(() => readLedgerSync(cut)).toThrow();
    await expect(readLedger(cut)).rejects.toThrow();
  });

  it('rejects a file that is not a ledger', async () => {
    const file = path.join(dir, 'x.arrow');
    fs.writeFileSync(file, 'not arrow at all');
    await expect(readLedger(file)).rejects.toThrow();
  });
});
