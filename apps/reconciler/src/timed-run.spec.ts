import { encodeEvent, HEADERS, type ClickEvent } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import { recordsTopicSource } from './adapters/kafka';
import type { IngestRead } from './core/reconcile-timed';
import { tapIngestTimes } from './timed-run';

const T0 = 1_700_000_000_000;

function rec(seq: number, topic: string): InRecord {
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
    ingest_time: T0 + seq,
  };
  return {
    topic,
    partition: seq % 2,
    offset: seq,
    key: null,
    value: encodeEvent(e),
    headers: { [HEADERS.seq]: Buffer.from(String(seq)), [HEADERS.runId]: Buffer.from('r1') },
    timestamp: T0 + seq,
  };
}

describe('tapIngestTimes', () => {
  it("keeps the run's ingest times from the valid topic's read, passes every read through unchanged", async () => {
    const topics: Record<string, InRecord[]> = {
      valid: [rec(0, 'valid'), rec(1, 'valid')],
      raw: [rec(5, 'raw')],
    };
    const kept: IngestRead[] = [];
    const source = tapIngestTimes(recordsTopicSource(topics), 'valid', 'r1', (i) => kept.push(i));
    const read = async (t: string): Promise<InRecord[]> => {
      const seen: InRecord[] = [];
      const n = await source.scan(t, { headers: [], values: false }, (r) => seen.push(r));
      expect(n).toBe(seen.length);
      return seen;
    };
    expect(await read('raw')).toEqual(topics.raw);
    expect(kept).toEqual([]);
    expect(await read('valid')).toEqual(topics.valid);
    expect(kept).toEqual([
      {
        ok: true,
        times: new Map([
          [0, T0],
          [1, T0 + 1],
        ]),
        notes: [],
      },
    ]);
  });
});
