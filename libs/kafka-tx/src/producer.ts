/** Idempotent (non-transactional) producer with per-record delivery reports. */
import type { DeliveryReport, IdempotentProducer, KafkaClientOptions, OutRecord } from './types';

export function createIdempotentProducer(_o: KafkaClientOptions): Promise<IdempotentProducer> {
  return Promise.reject(new Error('not implemented yet'));
}
export type { DeliveryReport, OutRecord };
