/** Refreshes the consumer-lag gauge every few seconds, never overlapping, never failing the gatekeeper. */

import type { Gauge } from 'prom-client';
import type { Logger } from 'pino';
import type { KafkaClientOptions } from '@clickstream/kafka-tx';

export interface LagPollOptions {
  kafka: {
    committedLag(options: KafkaClientOptions, groupId: string, topic: string): Promise<number>;
  };
  client: KafkaClientOptions;
  groupId: string;
  topic: string;
  everyMs: number;
  gauge: Gauge;
  logger: Logger;
  signal: AbortSignal;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Resolves once the signal aborts and the poll in flight (if any) has finished. */
export async function pollLag(o: LagPollOptions): Promise<void> {
  let failures = 0;
  while (!o.signal.aborted) {
    try {
      o.gauge.set(await o.kafka.committedLag(o.client, o.groupId, o.topic));
      failures = 0;
    } catch (error) {
      // A broker being down is exactly when lag matters; keep the last value and say why it is stale.
      if (failures++ === 0)
        o.logger.warn({ err: error, topic: o.topic }, 'consumer lag poll failed');
    }
    await sleep(o.everyMs, o.signal);
  }
}
