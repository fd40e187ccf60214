import type { LibrdKafkaError } from '@confluentinc/kafka-javascript';
import { toDeliveryReport } from './producer';

describe('toDeliveryReport', () => {
  it('a success carries its partition and offset', () => {
    expect(toDeliveryReport(null, { topic: 't', partition: 2, offset: 41 })).toEqual({
      ok: true,
      topic: 't',
      partition: 2,
      offset: 41,
      error: null,
    });
  });

  it('a success whose offset librdkafka did not learn (RD_KAFKA_OFFSET_INVALID) is still a success, offset null', () => {
    // Seen in a broker-partition experiment: an idempotent retry answered DUPLICATE_SEQUENCE_NUMBER.
    expect(toDeliveryReport(null, { topic: 't', partition: 1, offset: -1001 })).toEqual({
      ok: true,
      topic: 't',
      partition: 1,
      offset: null,
      error: null,
    });
  });

  it('a failure has no offset, and a partition only when one was chosen', () => {
    const err = { message: 'Local: Message timed out', code: -192 } as LibrdKafkaError;
    expect(toDeliveryReport(err, { topic: 't', partition: -1, offset: 7 })).toMatchObject({
      ok: false,
      partition: null,
      offset: null,
      error: expect.stringContaining('timed out'),
    });
    expect(toDeliveryReport(err, { topic: 't', partition: 0, offset: -1 }).partition).toBe(0);
  });
});
