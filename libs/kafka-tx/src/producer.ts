/** Idempotent (non-transactional) producer whose per-record outcomes are delivery reports, never exceptions. */
import { Producer } from '@confluentinc/kafka-javascript';
import type {
  DeliveryReport as RdDeliveryReport,
  LibrdKafkaError,
} from '@confluentinc/kafka-javascript';
import { inCallOrder } from './call-order';
import { describeError } from './errors';
import { rateLimitedWarn } from './log';
import { connectClient } from './rd-consumer';
import { produceWithBackpressure } from './rd-producer';
import { producerConfig, resolveTimeouts } from './settings';
import type { DeliveryReport, IdempotentProducer, KafkaClientOptions, OutRecord } from './types';

type Pending = (r: DeliveryReport) => void;

/**
 * A delivery report as a value. A success may come without an offset: librdkafka reports
 * RD_KAFKA_OFFSET_INVALID (-1001) when an idempotent retry was answered DUPLICATE_SEQUENCE_NUMBER
 * (the broker had the record from the first attempt, whose response was lost, e.g. across a
 * network partition). The record is written; only its offset is unknown, so it is null.
 */
export function toDeliveryReport(
  err: LibrdKafkaError | null,
  report: Pick<RdDeliveryReport, 'topic' | 'partition' | 'offset'>,
): DeliveryReport {
  const partition = report.partition >= 0 ? report.partition : null;
  return {
    ok: !err,
    topic: report.topic,
    partition,
    offset: !err && report.offset >= 0 ? report.offset : null,
    error: err ? describeError(err).message : null,
  };
}

/** enable.idempotence=true, acks=all: retries never duplicate or reorder a partition's records. */
export async function createIdempotentProducer(o: KafkaClientOptions): Promise<IdempotentProducer> {
  const t = resolveTimeouts(o);
  const log = o.logger.child?.({ module: 'kafka-tx.producer' }) ?? o.logger;
  const raw = new Producer({ ...producerConfig(o), dr_cb: true });
  const warnEvent = rateLimitedWarn(log, 'producer error event');
  raw.on('event.error', (e) => warnEvent({ err: describeError(e), fatal: e.isFatal === true }));
  raw.on('delivery-report', (err: LibrdKafkaError | null, report: RdDeliveryReport) => {
    const done = report.opaque as Pending | undefined;
    done?.(toDeliveryReport(err, report));
  });
  await connectClient(raw, t);
  raw.setPollInBackground(true);

  /** Enqueues one record; the wrapper keeps the report promise from being awaited here (enqueue order matters, waiting does not). */
  async function enqueue(r: OutRecord): Promise<{ report: Promise<DeliveryReport> }> {
    let resolveReport: Pending = () => undefined;
    const report = new Promise<DeliveryReport>((resolve) => (resolveReport = resolve));
    try {
      await produceWithBackpressure(raw, r, resolveReport);
    } catch (e) {
      // Refused locally (unknown partition, too large, fatal state): a definite failure.
      const error = describeError(e).message;
      return {
        report: Promise.resolve({
          ok: false,
          topic: r.topic,
          partition: r.partition ?? null,
          offset: null,
          error,
        }),
      };
    }
    return { report };
  }

  // Idempotence keeps each partition's records in the order they were enqueued, so send() calls
  // enqueue one after another: a caller that does not await one send before the next (the
  // generator, when it is behind its schedule) otherwise interleaved their records, and a later
  // copy of an event could land before the first one (docs/KAFKA.md, "Send order").
  const enqueueInOrder = inCallOrder();

  return {
    async send(records: OutRecord[]): Promise<DeliveryReport[]> {
      const reports = await enqueueInOrder(async () => {
        const out: Promise<DeliveryReport>[] = [];
        for (const r of records) out.push((await enqueue(r)).report);
        return out;
      });
      // The reports are awaited outside the turn: the next call enqueues while these are in flight.
      return Promise.all(reports);
    },
    flush(timeoutMs = 30000): Promise<void> {
      return new Promise((resolve, reject) =>
        raw.flush(timeoutMs, (err) => (err ? reject(err) : resolve())),
      );
    },
    close(): Promise<void> {
      return new Promise((resolve) => raw.disconnect(30000, () => resolve()));
    },
  };
}
