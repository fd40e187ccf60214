import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { writeLedger } from '@clickstream/ledger';
import { indexLedger } from '../core/ledger-index';
import { readLedgerIndex } from './ledger';
import { duplicateSend, poisonSend, validSend } from '../../test/ledger-rows';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconciler-ledger-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('readLedgerIndex (columnar)', () => {
  it('gives the same index as the row path, across batches', async () => {
    const rows = [
      validSend(0),
      poisonSend(1, 'truncated'),
      duplicateSend(2, 0),
      validSend(3, { delivery: 'failed', delivery_error: 'timeout' }),
      validSend(5, { delivery: 'not_sent', event_id: 'é-unicode' }),
      poisonSend(6, 'empty', { event_id: null }),
    ];
    const file = path.join(dir, 'ledger.arrow');
    await writeLedger(file, rows, { batchRows: 4 });
    const columnar = await readLedgerIndex(file, 2);
    const byRow = indexLedger(rows);
    expect(columnar).toEqual(byRow);
    expect(Array.from(columnar.canonical)).toEqual([0, 1, 0, 3, -1, 5, 6]);
    expect(columnar.problems).toEqual([]);
  });

  it('an empty ledger is an empty index', async () => {
    const file = path.join(dir, 'empty.arrow');
    await writeLedger(file, []);
    expect((await readLedgerIndex(file, 0)).rows).toBe(0);
  });

  it('rows the reconciler cannot trust are ledger problems', async () => {
    const file = path.join(dir, 'bad.arrow');
    await writeLedger(
      file,
      [
        poisonSend(0, 'empty', { expected_reason: null }),
        duplicateSend(1, 0, { duplicate_of: null }),
      ],
      { validate: false },
    );
    const problems = (await readLedgerIndex(file, 2)).problems.join('|');
    expect(problems).toContain('seq 0: poison without expected_reason');
    expect(problems).toContain('seq 1: duplicate without duplicate_of');
  });

  it('a file that is not a ledger is an error', async () => {
    const file = path.join(dir, 'x.arrow');
    fs.writeFileSync(file, 'not arrow');
    await expect(readLedgerIndex(file, 0)).rejects.toThrow();
  });
});
