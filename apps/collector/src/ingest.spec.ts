import type { DeliveryReport, OutRecord } from '@clickstream/kafka-tx';
import { Ingestor, type IngestOutcome } from './ingest';

const rec = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    key: null,
    value: Buffer.from([i]),
    headers: { 'cs-seq': String(i) },
  }));
const ok = (r: OutRecord, i: number): DeliveryReport => ({
  ok: true,
  topic: r.topic,
  partition: 0,
  offset: i,
  error: null,
});

function setup(
  send: (records: OutRecord[]) => Promise<DeliveryReport[]>,
  max = 10,
  ackTimeoutMs = 50,
) {
  const outcomes: [IngestOutcome, number][] = [];
  const ingestor = new Ingestor({
    producer: { send },
    topic: 't',
    maxInFlightEvents: max,
    ackTimeoutMs,
    hooks: { onOutcome: (o, n) => outcomes.push([o, n]) },
  });
  return { ingestor, outcomes };
}

describe('Ingestor', () => {
  it('answers ok only with a successful report for every event, in order, to the topic', async () => {
    let sent: OutRecord[] = [];
    const { ingestor, outcomes } = setup(async (records) => {
      sent = records;
      return records.map(ok);
    });
    const r = await ingestor.ingest(rec(3));
    expect(r).toEqual({
      ok: true,
      placements: [0, 1, 2].map((offset) => ({ partition: 0, offset })),
    });
    expect(sent.map((s) => [s.topic, s.headers?.['cs-seq']])).toEqual([
      ['t', '0'],
      ['t', '1'],
      ['t', '2'],
    ]);
    expect(outcomes).toEqual([['acked', 3]]);
    expect(ingestor.inFlightEvents).toBe(0);
  });

  it('answers kafka_unavailable when any report failed, or the send rejected', async () => {
    const { ingestor } = setup(async (records) =>
      records.map((r, i) =>
        i === 1
          ? { ...ok(r, i), ok: false, error: 'Broker: Not enough in-sync replicas' }
          : ok(r, i),
      ),
    );
    expect(await ingestor.ingest(rec(2))).toMatchObject({
      ok: false,
      refusal: 'kafka_unavailable',
      error: expect.stringContaining('in-sync'),
    });
    const rejecting = setup(() => Promise.reject(new Error('boom'))).ingestor;
    expect(await rejecting.ingest(rec(1))).toMatchObject({
      ok: false,
      refusal: 'kafka_unavailable',
    });
  });

  it('answers ack_timeout when reports are late, and keeps counting them in flight until they arrive', async () => {
    let deliver: (r: DeliveryReport[]) => void = () => undefined;
    const { ingestor, outcomes } = setup(
      (records) => new Promise((resolve) => (deliver = () => resolve(records.map(ok)))),
    );
    expect(await ingestor.ingest(rec(4))).toMatchObject({ ok: false, refusal: 'ack_timeout' });
    expect(ingestor.inFlightEvents).toBe(4);
    deliver([]);
    await new Promise((r) => setImmediate(r));
    expect(ingestor.inFlightEvents).toBe(0);
    expect(outcomes).toEqual([['timeout', 4]]);
  });

  it('answers backpressure past the in-flight bound without sending', async () => {
    const calls: number[] = [];
    const { ingestor, outcomes } = setup((records) => {
      calls.push(records.length);
      return new Promise(() => undefined);
    }, 5);
    void ingestor.ingest(rec(4));
    expect(await ingestor.ingest(rec(2))).toMatchObject({ ok: false, refusal: 'backpressure' });
    expect(calls).toEqual([4]);
    expect(outcomes).toEqual([['backpressure', 2]]);
  });
});
