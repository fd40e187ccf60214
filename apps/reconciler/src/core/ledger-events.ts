/** The facts of each valid send that the timed layers need (event_time, type, session, amount, send time), by seq. */

import type { LedgerRow } from '@clickstream/contracts';

export interface LedgerEvent {
  seq: number;
  runId: string;
  eventType: string;
  sessionId: string;
  eventTime: number;
  /** Null counts 0 in sums. */
  amountCents: number | null;
  /** The producer's timestamp of the send (the ledger's); the broker's ingest time is checked against it. */
  sendTime: number;
}

/** Valid sends by seq (poison and rows without an event are left out); a Map will do. */
export interface LedgerEvents {
  readonly size: number;
  get(seq: number): LedgerEvent | undefined;
}

/** For tests and small ledgers; the production reader is adapters/ledger-events.ts. */
export function ledgerEventsOf(rows: Iterable<LedgerRow>): Map<number, LedgerEvent> {
  const out = new Map<number, LedgerEvent>();
  for (const r of rows) {
    if (r.expected_fate !== 'valid' || r.event_id === null || r.event_type === null) continue;
    if (r.session_id === null || r.event_time === null) continue;
    out.set(r.seq, {
      seq: r.seq,
      runId: r.run_id,
      eventType: r.event_type,
      sessionId: r.session_id,
      eventTime: r.event_time,
      amountCents: r.amount_cents,
      sendTime: r.send_time,
    });
  }
  return out;
}
