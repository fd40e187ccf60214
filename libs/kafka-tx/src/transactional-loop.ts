/** Consume-transform-produce loop with one Kafka transaction per batch. */
import type { LoopResult, TransactionalLoopOptions } from './types';

export function runTransactionalLoop(_o: TransactionalLoopOptions): Promise<LoopResult> {
  return Promise.reject(new Error('not implemented yet'));
}
