/**
 * The ledger opens in the tools users have: pyarrow (installed by tools/setup under .cache/pyarrow)
 * reads it as the Arrow IPC stream it is, which is why it is named `.arrows`, not `.arrow`.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { LedgerRow } from '@clickstream/contracts';
import { LEDGER_FILE, LedgerWriter, writeLedger } from './index';

const PYARROW = path.resolve(__dirname, '../../../.cache/pyarrow');

let dir: string;
beforeAll(() => {
  if (!fs.existsSync(path.join(PYARROW, 'pyarrow'))) {
    throw new Error(`pyarrow is not installed under ${PYARROW}: run tools/setup`);
  }
});
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-pyarrow-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function row(seq: number): LedgerRow {
  return {
    run_id: 'run-py',
    seq,
    event_id: `e-${seq}`,
    event_type: 'add_to_cart',
    session_id: 's-1',
    key: 's-1',
    event_time: 1_764_000_000_000 + seq,
    amount_cents: seq % 2 === 0 ? null : seq * 100,
    schema_version: 2,
    send_time: 1_764_000_000_100 + seq,
    fault: 'none',
    duplicate_of: null,
    expected_fate: 'valid',
    expected_reason: null,
    expected_timeliness: 'on_time',
    delivery: 'acked',
    partition: 1,
    offset: seq,
    delivery_error: null,
  };
}

/** Runs a Python snippet with pyarrow; `file` is sys.argv[1]. */
function python(code: string, file: string): { status: number | null; out: string; err: string } {
  const r = spawnSync('python3', ['-c', code, file], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: PYARROW },
  });
  return { status: r.status, out: r.stdout.trim(), err: r.stderr };
}

const READ_STREAM = `
import sys, json, pyarrow.ipc as ipc
t = ipc.open_stream(sys.argv[1]).read_all()
print(json.dumps({"rows": t.num_rows, "seq": t.column("seq").to_pylist(), "amount": t.column("amount_cents").to_pylist(), "type": t.column("event_type").to_pylist()[0]}))
`;

describe('a ledger read by pyarrow', () => {
  it(`is named ${LEDGER_FILE}, the stream format's extension`, () => {
    expect(LEDGER_FILE).toBe('ledger.arrows');
  });

  it('opens as an IPC stream with every row and value, and not as an IPC file', async () => {
    const file = path.join(dir, LEDGER_FILE);
    await writeLedger(file, [0, 1, 2, 3, 4].map(row), { batchRows: 2 });
    const r = python(READ_STREAM, file);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({
      rows: 5,
      seq: [0, 1, 2, 3, 4],
      amount: [null, 100, null, 300, null],
      type: 'add_to_cart',
    });
    const asFile = python('import sys, pyarrow.ipc as ipc; ipc.open_file(sys.argv[1])', file);
    expect(asFile.status).not.toBe(0);
    expect(asFile.err).toMatch(/Not an Arrow file/);
  });

  it("reads the flushed batches of a writer that has not closed (a killed generator's ledger)", async () => {
    const file = path.join(dir, LEDGER_FILE);
    const w = LedgerWriter.open(file, { flushEveryMs: 20 });
    for (let i = 0; i < 3; i++) w.append(row(i));
    await new Promise((r) => setTimeout(r, 200));
    // No end-of-stream marker yet: pyarrow reads the batches that are there.
    const r = python(
      'import sys, pyarrow.ipc as ipc\nrd = ipc.open_stream(sys.argv[1])\nn = 0\ntry:\n  for b in rd: n += b.num_rows\nexcept Exception as e: pass\nprint(n)',
      file,
    );
    expect(r.out).toBe('3');
    await w.close();
  });
});
