/** What the planner hands to the sender: one record to produce and its ledger row minus the delivery outcome. */

import type { LedgerRow } from '@clickstream/contracts';

export type PlannedRow = Omit<LedgerRow, 'delivery' | 'partition' | 'offset' | 'delivery_error'>;

export interface PlannedSend {
  seq: number;
  /** Partition key: the session id (duplicates keep the original's), null for random-bytes poison. */
  key: string | null;
  value: Buffer;
  /** cs-seq and cs-run-id, on every record, poison included. */
  headers: Record<string, string>;
  /** The Kafka record timestamp to set = the ledger's send_time. */
  timestamp: number;
  row: PlannedRow;
}
