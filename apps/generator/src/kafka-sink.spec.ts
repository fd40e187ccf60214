import type { DeliveryReport, OutRecord } from '@clickstream/kafka-tx';
import { kafkaSink, type ProducerLike } from './kafka-sink';

function producer(
  send: (records: OutRecord[]) => Promise<DeliveryReport[]>,
): ProducerLike & { closed: boolean } {
  const p = {
    closed: false,
    send,
    flush: () => Promise.resolve(),
    close: () => {
      p.closed = true;
      return Promise.resolve();
    },
  };
  return p;
}

const rec = (i: number) => ({
  key: `s${i}`,
  value: Buffer.from([i]),
  headers: { 'cs-seq': String(i) },
  timestamp: 1000 + i,
});

describe('kafkaSink', () => {
  it('sends to the topic with key, headers and the explicit timestamp, and maps reports in order', async () => {
    let sent: OutRecord[] = [];
    const sink = kafkaSink(
      producer((records) => {
        sent = records;
        return Promise.resolve([
          { ok: true, topic: 't', partition: 2, offset: 7, error: null },
          {
            ok: false,
            topic: 't',
            partition: null,
            offset: null,
            error: 'Broker: Not enough in-sync replicas',
          },
        ]);
      }),
      't',
    );
    const out = await sink.send([rec(0), rec(1)]);
    expect(sent).toEqual([
      {
        topic: 't',
        key: 's0',
        value: Buffer.from([0]),
        headers: { 'cs-seq': '0' },
        timestamp: 1000,
      },
      {
        topic: 't',
        key: 's1',
        value: Buffer.from([1]),
        headers: { 'cs-seq': '1' },
        timestamp: 1001,
      },
    ]);
    expect(out).toEqual([
      { delivery: 'acked', partition: 2, offset: 7, error: null },
      {
        delivery: 'failed',
        partition: null,
        offset: null,
        error: 'Broker: Not enough in-sync replicas',
      },
    ]);
  });

  it('records every record of a batch as failed when the client fails as a whole, and a missing report as failed', async () => {
    const sink = kafkaSink(
      producer(() => Promise.reject(new Error('client closed'))),
      't',
    );
    const out = await sink.send([rec(0), rec(1)]);
    expect(out.every((o) => o.delivery === 'failed' && /client closed/.test(o.error ?? ''))).toBe(
      true,
    );
    const short = kafkaSink(
      producer(() => Promise.resolve([])),
      't',
    );
    expect((await short.send([rec(0)]))[0]!.delivery).toBe('failed');
  });

  it('flushes and closes the producer on close', async () => {
    const p = producer(() => Promise.resolve([]));
    await kafkaSink(p, 't').close();
    expect(p.closed).toBe(true);
  });
});
