import { encodeEvent, HEADERS, type ClickEvent } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import { ingestTimesOfLayer } from './adapters/ingest';
import { readKafkaLayer, recordsTopicSource } from './adapters/kafka';
import type { IngestRead } from './core/reconcile-timed';

const T0 = 1_700_000_000_000;

function rec(seq: number, topic: string, offset = seq, ingestTime = T0 + seq): InRecord {
  const e: ClickEvent = {
    event_id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    seq,
    run_id: 'r1',
    event_type: 'page_view',
    event_time: T0,
    session_id: 's',
    user_id: null,
    page: '/',
    product_id: null,
    quantity: null,
    amount_cents: null,
    currency: null,
    device: null,
    ingest_time: ingestTime,
  };
  return {
    topic,
    partition: seq % 2,
    offset,
    key: null,
    value: encodeEvent(e),
    headers: { [HEADERS.seq]: Buffer.from(String(seq)), [HEADERS.runId]: Buffer.from('r1') },
    timestamp: T0 + seq,
  };
}

/** The times as a Map (the reader keeps them in a typed array by seq). */
const asMap = (r: IngestRead | undefined) =>
  r?.ok
    ? {
        ...r,
        times: new Map(r.times),
        positions: r.positions && {
          partition: new Map(r.positions.partition),
          rank: new Map(r.positions.rank),
        },
      }
    : r;

describe('ingestTimesOfLayer', () => {
  it("takes the run's ingest times from the events.valid layer's own read: first per seq, up to its end offsets", async () => {
    // seq 1 written twice keeps its first ingest time; seq 4 lies past partition 0's end offset.
    const valid = [
      rec(0, 'valid'),
      rec(1, 'valid'),
      rec(1, 'valid', 11, T0 + 999),
      rec(4, 'valid'),
    ];
    const read = await readKafkaLayer(recordsTopicSource({ valid }), {
      topic: 'valid',
      kind: 'valid',
      runId: 'r1',
      ends: new Map([
        [0, 4],
        [1, 100],
      ]),
    });
    expect(asMap(ingestTimesOfLayer(read))).toEqual({
      ok: true,
      times: new Map([
        [0, T0],
        [1, T0 + 1],
      ]),
      positions: {
        partition: new Map([
          [0, 0],
          [1, 1],
        ]),
        rank: new Map([
          [0, 0],
          [1, 1],
        ]),
      },
      notes: [],
    });
  });

  it('says why when the layer could not be read, and gives nothing for a layer without valid records', () => {
    expect(ingestTimesOfLayer({ ok: false, error: 'broker down', readMs: 1 })).toEqual({
      ok: false,
      error: 'events.valid could not be read: broker down',
    });
    expect(ingestTimesOfLayer(undefined)).toBeUndefined();
    const clean = { ok: true as const, contents: { seqs: [1], foreign: 0, notes: [], readMs: 0 } };
    expect(ingestTimesOfLayer(clean)).toBeUndefined();
  });

  it('counts the records whose value does not decode to an ingest time', async () => {
    const bad = { ...rec(2, 'valid'), value: Buffer.from('not avro') };
    const read = await readKafkaLayer(recordsTopicSource({ valid: [rec(0, 'valid'), bad] }), {
      topic: 'valid',
      kind: 'valid',
      runId: 'r1',
      ends: new Map([[0, 10]]),
    });
    const ingest = ingestTimesOfLayer(read);
    expect(asMap(ingest)).toEqual({
      ok: true,
      times: new Map([[0, T0]]),
      positions: { partition: new Map([[0, 0]]), rank: new Map([[0, 0]]) },
      notes: [
        '1 valid record(s) of this run without ingest_time (undecodable, or none in the value)',
      ],
    });
  });
});
