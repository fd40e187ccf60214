/** Reading whole topics, end offsets and consumer-group lag. */
import type { InRecord, Isolation, KafkaClientOptions } from './types';

export function readTopic(_o: KafkaClientOptions & { topic: string; isolation?: Isolation }): Promise<InRecord[]> {
  return Promise.reject(new Error('not implemented yet'));
}
export function endOffsets(_o: KafkaClientOptions, _topic: string, _isolation?: Isolation): Promise<Map<number, number>> {
  return Promise.reject(new Error('not implemented yet'));
}
export function committedLag(_o: KafkaClientOptions, _groupId: string, _topic: string): Promise<number> {
  return Promise.reject(new Error('not implemented yet'));
}
