/** Where planned sends go: the seam between the generator's core and Kafka, so the core and dry runs never touch a Kafka client. */

import type { DeliveryStatus } from '@clickstream/contracts';

export interface SinkRecord {
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
  /** The Kafka record timestamp (CreateTime) to set: the send time in the ledger. */
  timestamp: number;
}

/** The outcome of one record, as a value. */
export interface SinkOutcome {
  delivery: DeliveryStatus;
  partition: number | null;
  offset: number | null;
  error: string | null;
}

export interface Sink {
  /** False for a dry run: send times come from the virtual clock and nothing leaves the process. */
  readonly live: boolean;
  /** Resolves with one outcome per record, in input order; never rejects for a per-record failure. */
  send(records: readonly SinkRecord[]): Promise<SinkOutcome[]>;
  /** Waits for outstanding deliveries and releases the client. */
  close(): Promise<void>;
}

const NOT_SENT: SinkOutcome = Object.freeze({
  delivery: 'not_sent',
  partition: null,
  offset: null,
  error: null,
});

/** The dry-run sink: every record is 'not_sent'. */
export function drySink(): Sink {
  return {
    live: false,
    send: (records) => Promise.resolve(records.map(() => NOT_SENT)),
    close: () => Promise.resolve(),
  };
}
