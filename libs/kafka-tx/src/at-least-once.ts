/** At-least-once consumer for sinks: offsets are committed only after the batch handler resolved. */
import type { AtLeastOnceOptions } from './types';

export function runAtLeastOnceConsumer(_o: AtLeastOnceOptions): Promise<void> {
  return Promise.reject(new Error('not implemented yet'));
}
