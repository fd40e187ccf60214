import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  DELIVERY_STATUSES,
  FAULT_KINDS,
  REJECT_REASONS,
  type LedgerRow,
} from '@clickstream/contracts';
import {
  iterateLedgerColumns,
  LedgerWriter,
  NULL_CODE,
  UNKNOWN_CODE,
  writeLedger,
  type LedgerColumns,
} from './index';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-columns-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function row(seq: number, over: Partial<LedgerRow> = {}): LedgerRow {
  return {
    run_id: 'run-1',
    seq,
    event_id: `e-${seq}`,
    event_type: 'page_view',
    session_id: 's-1',
    key: 's-1',
    event_time: 1_764_000_000_000 + seq,
    amount_cents: null,
    schema_version: 2,
    send_time: 1_764_000_000_100 + seq,
    fault: 'none',
    duplicate_of: null,
    expected_fate: 'valid',
    expected_reason: null,
    expected_timeliness: 'on_time',
    delivery: 'acked',
    partition: 1,
    offset: 123_456_789_012 + seq,
    delivery_error: null,
    ...over,
  };
}

async function batches(file: string): Promise<LedgerColumns[]> {
  const out: LedgerColumns[] = [];
  for await (const b of iterateLedgerColumns(file)) out.push(b);
  return out;
}

describe('iterateLedgerColumns', () => {
  const rows = [
    row(0),
    row(1, {
      fault: 'duplicate',
      duplicate_of: 0,
      event_id: 'e-0',
      delivery: 'failed',
      delivery_error: 'timeout',
    }),
    row(2, {
      event_id: 'é-unicode',
      expected_timeliness: 'late',
      delivery: 'not_sent',
      offset: null,
      partition: null,
    }),
    row(3, {
      event_id: null,
      event_type: null,
      fault: 'poison_truncated',
      expected_fate: 'poison',
      expected_reason: 'truncated',
      expected_timeliness: null,
      event_time: null,
    }),
    row(4, { amount_cents: 1999 }),
  ];

  it('gives equal values that follow each other, and values of equal length that differ, as they are', async () => {
    const file = path.join(dir, 'repeated.arrow');
    const ids = ['ab', 'ab', 'ac', null, 'ac', '', '', 'ab'];
    await writeLedger(
      file,
      ids.map((id, i) => row(i, { event_id: id })),
      { batchRows: 5 },
    );
    const got = await batches(file);
    expect(got.flatMap((b) => b.strings('event_id'))).toEqual(ids);
  });

  it('gives every column as the row reader would, across batches', async () => {
    const file = path.join(dir, 'ledger.arrow');
    await writeLedger(file, rows, { batchRows: 2 });
    const got = await batches(file);
    expect(got.map((b) => b.length)).toEqual([2, 2, 1]);
    const all = <T>(f: (b: LedgerColumns) => ArrayLike<T>): T[] =>
      got.flatMap((b) => Array.from(f(b)));
    expect(all((b) => b.strings('run_id'))).toEqual(rows.map((r) => r.run_id));
    expect(all((b) => b.strings('event_id'))).toEqual(rows.map((r) => r.event_id));
    expect(all((b) => b.strings('delivery_error'))).toEqual(rows.map((r) => r.delivery_error));
    expect(all((b) => b.present('event_id'))).toEqual(rows.map((r) => (r.event_id ? 1 : 0)));
    expect(all((b) => b.numbers('seq', -1))).toEqual(rows.map((r) => r.seq));
    expect(all((b) => b.numbers('duplicate_of', -1))).toEqual(
      rows.map((r) => r.duplicate_of ?? -1),
    );
    expect(all((b) => b.numbers('offset', -1))).toEqual(rows.map((r) => r.offset ?? -1));
    expect(all((b) => b.numbers('partition', -1))).toEqual(rows.map((r) => r.partition ?? -1));
    expect(all((b) => b.numbers('event_time', -1))).toEqual(rows.map((r) => r.event_time ?? -1));
    expect(all((b) => b.numbers('send_time', -1))).toEqual(rows.map((r) => r.send_time));
    expect(all((b) => b.codes('fault', FAULT_KINDS))).toEqual(
      rows.map((r) => FAULT_KINDS.indexOf(r.fault)),
    );
    expect(all((b) => b.codes('delivery', DELIVERY_STATUSES))).toEqual(
      rows.map((r) => DELIVERY_STATUSES.indexOf(r.delivery)),
    );
    expect(all((b) => b.codes('expected_reason', REJECT_REASONS))).toEqual(
      rows.map((r) =>
        r.expected_reason === null ? NULL_CODE : REJECT_REASONS.indexOf(r.expected_reason),
      ),
    );
  });

  it('codes a value outside the given list as UNKNOWN_CODE, or as the caller says', async () => {
    const file = path.join(dir, 'ledger.arrow');
    await writeLedger(file, rows);
    const [b] = await batches(file);
    expect(Array.from(b?.codes('expected_fate', ['valid']) ?? [])).toEqual([
      0,
      0,
      0,
      UNKNOWN_CODE,
      0,
    ]);
    expect(Array.from(b?.codes('fault', [], (v) => (v === 'duplicate' ? 1 : 0)) ?? [])).toEqual([
      0, 1, 0, 0, 0,
    ]);
  });

  it('an empty ledger has no batches with rows', async () => {
    const file = path.join(dir, 'empty.arrow');
    await writeLedger(file, []);
    expect((await batches(file)).reduce((n, b) => n + b.length, 0)).toBe(0);
  });

  it('reads a ledger cut inside a batch up to the cut when asked, and says where it was cut', async () => {
    const three = path.join(dir, 'three.arrows');
    await writeLedger(three, [row(0), row(1), row(2)], { batchRows: 1 });
    const full = fs.readFileSync(three);
    const cut = path.join(dir, 'cut.arrows');
    fs.writeFileSync(cut, full.subarray(0, full.length - 8 - 40));
    const seqs: number[] = [];
    let detail: string | null = null;
    for await (const b of iterateLedgerColumns(cut, { onCutTail: (d) => (detail = d) })) {
      seqs.push(...b.numbers('seq', -1));
    }
    expect(seqs).toEqual([0, 1]);
    expect(detail).toMatch(/ends inside a batch after 2 row\(s\)/);
    // Without the option, a cut is an error as before.
    await expect(async () => {
      for await (const b of iterateLedgerColumns(cut)) void b;
    }).rejects.toThrow();
  });

  it('a live writer flushes on its timer: rows are on disk before close, without the end marker', async () => {
    const file = path.join(dir, 'live.arrows');
    const w = LedgerWriter.open(file, { flushEveryMs: 20 });
    w.append(row(0));
    w.append(row(1));
    await new Promise((r) => setTimeout(r, 200));
    // As a reader sees the file of a writer killed now.
    const seqs: number[] = [];
    for await (const b of iterateLedgerColumns(file, { onCutTail: () => undefined })) {
      seqs.push(...b.numbers('seq', -1));
    }
    expect(seqs).toEqual([0, 1]);
    await w.close();
  });

  it('a writer without the timer keeps its rows until a batch fills or it closes', async () => {
    const file = path.join(dir, 'quiet.arrows');
    const w = LedgerWriter.open(file, { flushEveryMs: 0 });
    w.append(row(0));
    await new Promise((r) => setTimeout(r, 100));
    const seqs: number[] = [];
    for await (const b of iterateLedgerColumns(file, { onCutTail: () => undefined })) {
      seqs.push(...b.numbers('seq', -1));
    }
    expect(seqs).toEqual([]);
    await w.close();
  });

  it('a file that is not a ledger is an error', async () => {
    const file = path.join(dir, 'x.arrow');
    fs.writeFileSync(file, 'not arrow');
    await expect(batches(file)).rejects.toThrow();
  });
});
