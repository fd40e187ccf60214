/** Public entry point of @clickstream/kafka-tx: the only module set in the repository that talks to Kafka. */

export type {
  Logger,
  Isolation,
  KafkaClientOptions,
  InRecord,
  OutRecord,
  DeliveryReport,
  IdempotentProducer,
  LoopHooks,
  TransactionalLoopOptions,
  LoopResult,
  AtLeastOnceOptions,
  TopicSpec,
} from './types';
export { DEFAULT_LINGER_MS, DEFAULT_TIMEOUTS } from './settings';
export { createIdempotentProducer } from './producer';
export { runTransactionalLoop } from './transactional-loop';
export { pendingTxCalls, txCallsSettled } from './rd-producer';
export { runAtLeastOnceConsumer } from './at-least-once';
export { readTopic, readRanges, endOffsets, trimmedBeforeRead } from './offsets';
export type { ReadRanges, TopicReadOptions } from './offsets';
export { committedLag, lagReader } from './lag';
export type { LagReader } from './lag';
export { scanTopic } from './topic-reader';
export type { ScanOptions, ScanResult, ScanWant } from './topic-reader';
export {
  createTopics,
  deleteTopics,
  deleteRecordsBefore,
  topicExists,
  transactionCoordinator,
  transactionStatePartition,
} from './admin';
export { FatalKafkaError } from './tx-engine';
export { BatchHandlerError } from './alo-engine';
