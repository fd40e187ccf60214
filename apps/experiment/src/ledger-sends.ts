/** The acked sends of a run, read from its ledger (send times only, columnar: cheap for millions of rows). */

import * as path from 'path';
import { DELIVERY_STATUSES } from '@clickstream/contracts';
import { iterateLedgerColumns, LEDGER_FILE } from '@clickstream/ledger';

export interface Sends {
  /** Send time (ms) of every send whose delivery the producer acknowledged. */
  ackedMs: Float64Array;
  total: number;
  failed: number;
}

export async function readSends(runDir: string): Promise<Sends> {
  const parts: Float64Array[] = [];
  let total = 0;
  let failed = 0;
  const acked = DELIVERY_STATUSES.indexOf('acked');
  const fail = DELIVERY_STATUSES.indexOf('failed');
  for await (const batch of iterateLedgerColumns(path.join(runDir, LEDGER_FILE), {
    onCutTail: () => undefined,
  })) {
    const times = batch.numbers('send_time', NaN);
    const delivery = batch.codes('delivery', DELIVERY_STATUSES);
    const keep = new Float64Array(batch.length);
    let n = 0;
    for (let i = 0; i < batch.length; i++) {
      if (delivery[i] === acked) keep[n++] = times[i] as number;
      else if (delivery[i] === fail) failed++;
    }
    total += batch.length;
    parts.push(keep.subarray(0, n));
  }
  const ackedMs = new Float64Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    ackedMs.set(p, at);
    at += p.length;
  }
  return { ackedMs, total, failed };
}
