/**
 * The acknowledgement rule: a request's events are handed to the idempotent producer together, and
 * the answer is 2xx only when every one of them has a successful delivery report (acks=all).
 * Anything else is a 503 with Retry-After: a failed report, reports that do not all arrive within
 * the ack timeout (the outcome is then unknown; the client's retry carries the same event ids, and
 * the clean job's dedup drops a second copy), or more events waiting for Kafka than the bound.
 */

import type { DeliveryReport, OutRecord } from '@clickstream/kafka-tx';
import { refused, type Refused } from './errors';
import type { CarriedRecord } from './records';

export interface ProducerPort {
  send(records: OutRecord[]): Promise<DeliveryReport[]>;
}

export type IngestOutcome = 'acked' | 'failed' | 'timeout' | 'backpressure';

export interface IngestHooks {
  /** Called once per request with its event count; must not throw. */
  onOutcome?(outcome: IngestOutcome, events: number): void;
}

export interface IngestOptions {
  producer: ProducerPort;
  topic: string;
  /** Events handed to the producer whose reports have not all arrived; past it, 503. */
  maxInFlightEvents: number;
  ackTimeoutMs: number;
  hooks?: IngestHooks;
}

export type IngestResult =
  { ok: true; placements: { partition: number | null; offset: number | null }[] } | Refused;

export class Ingestor {
  private inFlight = 0;

  constructor(private readonly o: IngestOptions) {}

  /** Events handed to Kafka and not yet reported on (a request that timed out still counts until its reports arrive). */
  get inFlightEvents(): number {
    return this.inFlight;
  }

  async ingest(records: readonly CarriedRecord[]): Promise<IngestResult> {
    const n = records.length;
    if (this.inFlight > 0 && this.inFlight + n > this.o.maxInFlightEvents) {
      this.o.hooks?.onOutcome?.('backpressure', n);
      return refused(
        'backpressure',
        `${this.inFlight} events are waiting for Kafka (bound ${this.o.maxInFlightEvents}); retry later`,
      );
    }
    this.inFlight += n;
    const out: OutRecord[] = records.map((r) => ({
      topic: this.o.topic,
      key: r.key,
      value: r.value,
      headers: r.headers,
    }));
    // The bound counts until Kafka has answered for every record, not until this request gives up.
    const reports = this.o.producer.send(out).finally(() => {
      this.inFlight -= n;
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.o.ackTimeoutMs);
    });
    let settled: DeliveryReport[] | null | Error;
    try {
      settled = await Promise.race([
        reports.catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
    if (settled === null) {
      this.o.hooks?.onOutcome?.('timeout', n);
      return refused(
        'ack_timeout',
        `Kafka did not acknowledge all ${n} events within ${this.o.ackTimeoutMs} ms; outcome unknown, retry the same request`,
      );
    }
    if (settled instanceof Error || settled.length !== n || settled.some((r) => !r.ok)) {
      this.o.hooks?.onOutcome?.('failed', n);
      const first =
        settled instanceof Error
          ? settled.message
          : (settled.find((r) => !r.ok)?.error ?? 'missing delivery report');
      return refused(
        'kafka_unavailable',
        `Kafka did not take every event: ${first}; retry the same request`,
      );
    }
    this.o.hooks?.onOutcome?.('acked', n);
    return {
      ok: true,
      placements: settled.map((r) => ({ partition: r.partition, offset: r.offset })),
    };
  }
}
