/**
 * Kafka for integration tests without depending on @clickstream/kafka-tx (whose own specs use this
 * library): client options for the local stack, a test logger, and producing with every send acknowledged.
 */

import pino, { type Logger } from 'pino';
import { localBootstrap, testLogLevel } from './config';

/** Warnings and errors to stderr (visible when a spec fails); TEST_LOG_LEVEL changes the level. */
export const testLogger: Logger = pino({ level: testLogLevel() }, pino.destination(2));

/** Client options for the local stack (the shape of kafka-tx's KafkaClientOptions). */
export function clusterOptions(
  clientId: string,
  logger: Logger = testLogger,
): { bootstrap: string; clientId: string; logger: Logger } {
  return { bootstrap: localBootstrap(), clientId, logger };
}

/** What produceAcked needs of a producer (kafka-tx's IdempotentProducer fits). */
export interface AckingProducer<R> {
  send(records: R[]): Promise<{ ok: boolean; error: string | null }[]>;
  close(): Promise<void>;
}

/** Opens a producer, sends the records in chunks and throws unless every send was acknowledged; closes it in any case. */
export async function produceAcked<R>(
  open: () => Promise<AckingProducer<R>>,
  records: readonly R[],
  chunk = 5000,
): Promise<void> {
  const producer = await open();
  try {
    for (let i = 0; i < records.length; i += chunk) {
      const reports = await producer.send(records.slice(i, i + chunk));
      const failed = reports.filter((r) => !r.ok);
      if (failed.length > 0)
        throw new Error(`${failed.length} sends failed, first: ${failed[0]?.error ?? '?'}`);
    }
  } finally {
    await producer.close();
  }
}
