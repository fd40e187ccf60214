/** The loop's transform: route() over a batch, remembering the outcomes until the transaction commits or aborts. */

import type { Logger } from 'pino';
import type { InRecord, OutRecord } from '@clickstream/kafka-tx';
import type { PendingTally } from './metrics';
import { routeRecord, type OutputTopics } from './route';

export function createTransform(
  topics: OutputTopics,
  tally: PendingTally,
  logger: Logger,
): (batch: InRecord[]) => OutRecord[] {
  return (batch) => {
    // A retried batch is transformed again from scratch; only the last attempt's outcomes may count.
    tally.reset();
    return batch.map((record) => {
      const { out, outcome } = routeRecord(record, topics);
      if (outcome.kind === 'valid') {
        tally.addValid();
      } else {
        tally.addDeadLetter(outcome.reason);
        logger.debug(
          {
            partition: record.partition,
            offset: record.offset,
            reason: outcome.reason,
            detail: outcome.detail,
          },
          'dead letter',
        );
      }
      return out;
    });
  };
}
