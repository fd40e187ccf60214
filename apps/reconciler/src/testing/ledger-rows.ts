/** Tiny hand-written ledgers for tests and the benchmark: one helper per kind of send. */

import type { LedgerRow, RejectReason } from '@clickstream/contracts';

export const RUN = 'run-test';

export function validSend(seq: number, over: Partial<LedgerRow> = {}): LedgerRow {
  return {
    run_id: RUN,
    seq,
    event_id: `e-${seq}`,
    event_type: 'page_view',
    session_id: `s-${seq % 7}`,
    key: `s-${seq % 7}`,
    event_time: 1_700_000_000_000 + seq,
    amount_cents: null,
    schema_version: 2,
    send_time: 1_700_000_000_000 + seq,
    fault: 'none',
    duplicate_of: null,
    expected_fate: 'valid',
    expected_reason: null,
    expected_timeliness: 'on_time',
    delivery: 'acked',
    partition: seq % 6,
    offset: seq,
    delivery_error: null,
    ...over,
  };
}

/** A later send of the same event as `of` (same event_id): an injected duplicate. */
export function duplicateSend(seq: number, of: number, over: Partial<LedgerRow> = {}): LedgerRow {
  return validSend(seq, { event_id: `e-${of}`, fault: 'duplicate', duplicate_of: of, ...over });
}

export function poisonSend(seq: number, reason: RejectReason = 'bad_magic', over: Partial<LedgerRow> = {}): LedgerRow {
  return validSend(seq, {
    event_id: null,
    event_type: null,
    fault: 'poison_bad_magic',
    expected_fate: 'poison',
    expected_reason: reason,
    expected_timeliness: null,
    ...over,
  });
}
