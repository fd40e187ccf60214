/** Idempotent topic creation and deletion. */
import type { KafkaClientOptions, TopicSpec } from './types';

export function createTopics(_o: KafkaClientOptions, _topics: TopicSpec[]): Promise<void> {
  return Promise.reject(new Error('not implemented yet'));
}
export function deleteTopics(_o: KafkaClientOptions, _topics: string[]): Promise<void> {
  return Promise.reject(new Error('not implemented yet'));
}
