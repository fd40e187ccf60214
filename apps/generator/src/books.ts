/** The run's books: every planned send is written to the ledger exactly once, with its outcome, in seq order, and counted. */

import { FAULT_KINDS, type FaultKind } from '@clickstream/contracts';
import type { LedgerWriter } from '@clickstream/ledger';
import { ledgerRow, type PlannedSend } from './planned';
import type { SinkOutcome } from './sink';

export class Books {
  readonly byFault = Object.fromEntries(FAULT_KINDS.map((f) => [f, 0])) as Record<
    FaultKind,
    number
  >;
  readonly delivery = { acked: 0, failed: 0, not_sent: 0 };
  sends = 0;

  constructor(readonly ledger: LedgerWriter) {}

  record(sends: readonly PlannedSend[], outcomes: readonly SinkOutcome[]): void {
    for (let i = 0; i < sends.length; i++) {
      const s = sends[i]!;
      const o = outcomes[i] ?? {
        delivery: 'failed' as const,
        partition: null,
        offset: null,
        error: 'sink returned no outcome',
      };
      const row = ledgerRow(s.row, o);
      this.ledger.append(row);
      this.sends++;
      this.byFault[row.fault]++;
      this.delivery[o.delivery]++;
    }
  }
}
