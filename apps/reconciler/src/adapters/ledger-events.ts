/** Ledger adapter for the timed layers: the valid sends' event fields, read column by column (one small object per valid send). */

import { iterateLedgerColumns, type LedgerColumns } from '@clickstream/ledger';
import { EVENT_TYPES } from '@clickstream/contracts';
import type { LedgerEvent } from '../core/ledger-events';

function addBatch(out: Map<number, LedgerEvent>, batch: LedgerColumns): void {
  const n = batch.length;
  const runIds = batch.strings('run_id');
  const eventIds = batch.strings('event_id');
  const sessionIds = batch.strings('session_id');
  const seqs = batch.numbers('seq', -1);
  const eventTimes = batch.numbers('event_time', Number.NaN);
  const amounts = batch.numbers('amount_cents', Number.NaN);
  const sendTimes = batch.numbers('send_time', Number.NaN);
  const types = batch.codes('event_type', EVENT_TYPES);
  const valid = batch.codes('expected_fate', [], (v) => (v === 'valid' ? 1 : 0));
  for (let i = 0; i < n; i++) {
    if (valid[i] !== 1) continue;
    const eventId = eventIds[i];
    const sessionId = sessionIds[i];
    const type = EVENT_TYPES[types[i] as number];
    const eventTime = eventTimes[i] as number;
    if (!eventId || !sessionId || type === undefined || Number.isNaN(eventTime)) continue;
    const amount = amounts[i] as number;
    out.set(seqs[i] as number, {
      seq: seqs[i] as number,
      runId: runIds[i] ?? '',
      eventId,
      eventType: type,
      sessionId,
      eventTime,
      amountCents: Number.isNaN(amount) ? null : amount,
      sendTime: sendTimes[i] as number,
    });
  }
}

export async function readLedgerEvents(file: string): Promise<Map<number, LedgerEvent>> {
  const out = new Map<number, LedgerEvent>();
  for await (const batch of iterateLedgerColumns(file)) addBatch(out, batch);
  return out;
}
