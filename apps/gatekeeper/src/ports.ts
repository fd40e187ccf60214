/** The parts of @clickstream/kafka-tx the gatekeeper uses; injected so run(), the loop and the lag poll can be exercised without a cluster. */

import type {
  KafkaClientOptions,
  LagReader,
  LoopResult,
  TransactionalLoopOptions,
} from '@clickstream/kafka-tx';

export interface KafkaPort {
  runTransactionalLoop(options: TransactionalLoopOptions): Promise<LoopResult>;
  lagReader(options: KafkaClientOptions, groupId: string): LagReader;
  endOffsets(options: KafkaClientOptions, topic: string): Promise<Map<number, number>>;
}
