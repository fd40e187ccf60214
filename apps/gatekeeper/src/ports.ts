/** The parts of @clickstream/kafka-tx the gatekeeper uses; injected so run(), the loop and the lag poll can be exercised without a cluster. */

import type {
  KafkaClientOptions,
  LoopResult,
  TransactionalLoopOptions,
} from '@clickstream/kafka-tx';

export interface KafkaPort {
  runTransactionalLoop(options: TransactionalLoopOptions): Promise<LoopResult>;
  committedLag(options: KafkaClientOptions, groupId: string, topic: string): Promise<number>;
  endOffsets(options: KafkaClientOptions, topic: string): Promise<Map<number, number>>;
}
