/** Adapts an idempotent producer from @clickstream/kafka-tx to the generator's Sink. */

import type { DeliveryReport, OutRecord } from '@clickstream/kafka-tx';
import type { Sink, SinkOutcome } from './sink';

/** The part of kafka-tx's IdempotentProducer the sink needs (structural, so tests can pass a fake). */
export interface ProducerLike {
  send(records: OutRecord[]): Promise<DeliveryReport[]>;
  flush(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function outcome(report: DeliveryReport | undefined): SinkOutcome {
  if (report === undefined)
    return {
      delivery: 'failed',
      partition: null,
      offset: null,
      error: 'no delivery report for this record',
    };
  if (report.ok)
    return { delivery: 'acked', partition: report.partition, offset: report.offset, error: null };
  return {
    delivery: 'failed',
    partition: report.partition,
    offset: null,
    error: report.error ?? 'delivery failed (no error text)',
  };
}

export function kafkaSink(producer: ProducerLike, topic: string): Sink {
  return {
    live: true,
    async send(records) {
      const out: OutRecord[] = records.map((r) => ({
        topic,
        key: r.key,
        value: r.value,
        headers: r.headers,
        timestamp: r.timestamp,
      }));
      try {
        const reports = await producer.send(out);
        return records.map((_, i) => outcome(reports[i]));
      } catch (err) {
        // The client failed as a whole: every record of the batch is recorded as failed, never dropped.
        // It is an indefinite failure (some may have been written), which the error text says.
        const error = `send failed for the whole batch (outcome indefinite): ${err instanceof Error ? err.message : String(err)}`;
        return records.map(() => ({
          delivery: 'failed' as const,
          partition: null,
          offset: null,
          error,
        }));
      }
    },
    async close() {
      await producer.flush();
      await producer.close();
    },
  };
}
