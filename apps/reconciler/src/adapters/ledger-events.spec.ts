import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { writeLedger } from '@clickstream/ledger';
import { ledgerEventsOf } from '../core/ledger-events';
import { readLedgerEvents } from './ledger-events';
import { duplicateSend, poisonSend, validSend } from '../../test/ledger-rows';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconciler-ledger-events-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('readLedgerEvents (columnar)', () => {
  it('gives every valid send the row path gives, by seq, across batches (and nothing else)', async () => {
    const rows = [
      validSend(0),
      poisonSend(1, 'truncated'),
      duplicateSend(2, 0),
      validSend(3, { amount_cents: 1999, event_type: 'payment_succeeded' }),
      validSend(5, { delivery: 'not_sent', session_id: 'é-unicode' }),
      validSend(6, { event_id: null }),
      validSend(2100, { run_id: 'other-run' }),
    ];
    const file = path.join(dir, 'ledger.arrow');
    await writeLedger(file, rows, { batchRows: 3 });
    const columnar = await readLedgerEvents(file);
    const byRow = ledgerEventsOf(rows);
    expect(columnar.size).toBe(byRow.size);
    for (const seq of [-1, 0, 1, 2, 3, 4, 5, 6, 7, 2100, 5000])
      expect(columnar.get(seq)).toEqual(byRow.get(seq));
    expect(columnar.get(3)?.amountCents).toBe(1999);
    expect(columnar.get(2100)?.runId).toBe('other-run');
    expect(columnar.get(6)).toBeUndefined();
  });
});
