/** Refreshes the consumer-lag gauge every few seconds over one lag reader, never overlapping, never failing the gatekeeper. */

import { setTimeout as sleep } from 'node:timers/promises';
import type { Gauge } from 'prom-client';
import type { Logger } from 'pino';
import type { KafkaClientOptions } from '@clickstream/kafka-tx';
import type { KafkaPort } from './ports';

export interface LagPollOptions {
  kafka: Pick<KafkaPort, 'lagReader'>;
  client: KafkaClientOptions;
  groupId: string;
  topic: string;
  everyMs: number;
  gauge: Gauge;
  logger: Logger;
  signal: AbortSignal;
}

/** Resolves once the signal aborts, the poll in flight (if any) has finished and the reader is closed. */
export async function pollLag(o: LagPollOptions): Promise<void> {
  const reader = o.kafka.lagReader(o.client, o.groupId);
  let failures = 0;
  while (!o.signal.aborted) {
    try {
      o.gauge.set(await reader.lag(o.topic));
      failures = 0;
    } catch (error) {
      // A broker being down is exactly when lag matters; keep the last value and say why it is stale.
      if (failures++ === 0)
        o.logger.warn({ err: error, topic: o.topic }, 'consumer lag poll failed');
    }
    // Aborted on stop: the while condition ends the poll.
    await sleep(o.everyMs, undefined, { signal: o.signal }).catch(() => undefined);
  }
  await reader.close();
}
