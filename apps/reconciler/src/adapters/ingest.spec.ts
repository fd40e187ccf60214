import { encodeEvent, HEADERS, type ClickEvent } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import type { IngestRead } from '../core/reconcile-timed';
import { ingestTimesOfLayer } from './ingest';
import { extractRun } from './kafka';

/** This run's valid records up to the end offsets, through the path the reconciler takes: the layer's read, then its ingest times. */
function extractIngestTimes(
  records: InRecord[],
  runId: string,
  ends: Map<number, number>,
): IngestRead & { ok: true } {
  const ingest = ingestTimesOfLayer(extractRun(records, { kind: 'valid', runId, ends }));
  if (ingest?.ok !== true) throw new Error(`no ingest times: ${JSON.stringify(ingest)}`);
  return ingest;
}

const T0 = 1_700_000_000_000;

function rec(seq: number, offset: number, ingest: number | null, run = 'r1'): InRecord {
  const e: ClickEvent = {
    event_id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    seq,
    run_id: run,
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
    ingest_time: ingest,
  };
  return {
    topic: 'events.valid',
    partition: 1,
    offset,
    key: null,
    value: encodeEvent(e),
    headers: { [HEADERS.seq]: Buffer.from(String(seq)), [HEADERS.runId]: Buffer.from(run) },
    timestamp: ingest ?? T0,
  };
}

describe('extractIngestTimes', () => {
  it('the empty topic gives no time', () => {
    expect(extractIngestTimes([], 'r1', new Map()).times.size).toBe(0);
  });

  it("reads each send's ingest_time from the value, first copy first, this run only, up to the end offsets", () => {
    const read = extractIngestTimes(
      [
        rec(0, 0, T0 + 5),
        rec(0, 1, T0 + 99),
        rec(1, 2, T0 + 7, 'r2'),
        rec(2, 3, null),
        rec(3, 50, T0 + 1),
      ],
      'r1',
      new Map([[1, 10]]),
    );
    expect([...read.times]).toEqual([[0, T0 + 5]]);
    expect(read.notes.join()).toContain('without ingest_time');
  });

  it("keeps each send's place in the layer (partition, rank in the layer's order) beside its time", () => {
    const read = extractIngestTimes(
      [rec(5, 0, T0 + 9), rec(4, 1, T0 + 8), rec(5, 2, T0 + 99)],
      'r1',
      new Map([[1, 10]]),
    );
    expect([4, 5].map((seq) => read.positions?.partition.get(seq))).toEqual([1, 1]);
    expect([4, 5].map((seq) => read.positions?.rank.get(seq))).toEqual([1, 0]);
  });
});
