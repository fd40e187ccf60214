import { CANONICAL_VERSION, encodeEvent, type ClickEvent } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import { NO_SEQ, SEQ_OUT_OF_RANGE } from '../core/contents';
import { extractRun, readKafkaLayer, recordsTopicSource, type TopicSource } from './kafka';

function rec(partition: number, offset: number, headers: Record<string, string>): InRecord {
  const h: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(headers)) h[k] = Buffer.from(v);
  return { topic: 't', partition, offset, key: null, value: null, headers: h, timestamp: 0 };
}

describe('extractRun', () => {
  const ends = new Map([
    [0, 10],
    [1, 2],
  ]);

  it('keeps this run by cs-run-id, reads cs-seq, counts other runs and records past the end offsets', () => {
    const read = extractRun(
      [
        rec(0, 0, { 'cs-run-id': 'r1', 'cs-seq': '7' }),
        rec(0, 1, { 'cs-run-id': 'probe', 'cs-seq': '7' }),
        rec(1, 1, { 'cs-run-id': 'r1', 'cs-seq': 'x7' }),
        rec(1, 2, { 'cs-run-id': 'r1', 'cs-seq': '8' }), // at the end offset: arrived after the start
        rec(2, 0, { 'cs-run-id': 'r1', 'cs-seq': '9' }), // a partition with no end offset
        rec(0, 3, { 'cs-seq': '10' }),
        rec(0, 4, { 'cs-run-id': 'r1', 'cs-seq': '99999999999' }),
      ],
      { kind: 'raw', runId: 'r1', ends },
    );
    expect(Array.from(read.contents.seqs)).toEqual([7, NO_SEQ, SEQ_OUT_OF_RANGE]);
    expect(read.contents.foreign).toBe(2);
    expect(read.contents.reasons).toBeUndefined();
    expect(read.contents.notes.join('|')).toContain('2 record(s) past the end offsets');
    expect(read.contents.notes.join('|')).toContain('1 record(s) without a cs-run-id header');
  });

  it('reads the reason header of dead letters', () => {
    const read = extractRun(
      [
        rec(0, 0, { 'cs-run-id': 'r1', 'cs-seq': '3', 'cs-reason': 'truncated' }),
        rec(0, 1, { 'cs-run-id': 'r1', 'cs-seq': '4' }),
      ],
      { kind: 'dlq', runId: 'r1', ends },
    );
    expect(Array.from(read.contents.seqs)).toEqual([3, 4]);
    expect(read.contents.reasons).toEqual(['truncated', null]);
  });

  it('keeps what the fidelity checks need: raw placement, timestamps and the poison bytes asked for', () => {
    const raw = (seq: string, value: Buffer | null): InRecord => ({
      ...rec(1, 5 + Number(seq), { 'cs-run-id': 'r1', 'cs-seq': seq }),
      value,
      timestamp: 1000 + Number(seq),
    });
    const read = extractRun(
      [raw('0', Buffer.from('ok')), raw('1', Buffer.alloc(0)), raw('2', null)],
      {
        kind: 'raw',
        runId: 'r1',
        topic: 'raw-topic',
        ends: new Map([[1, 100]]),
        keepValue: (seq) => seq !== 0,
      },
    );
    const r = read.contents.records;
    expect(r?.kind).toBe('raw');
    if (r?.kind !== 'raw') return;
    expect(r.topic).toBe('raw-topic');
    expect(Array.from(r.partitions)).toEqual([1, 1, 1]);
    expect(Array.from(r.offsets)).toEqual([5, 6, 7]);
    expect(Array.from(r.timestamps)).toEqual([1000, 1001, 1002]);
    expect([...r.values.entries()]).toEqual([
      [1, Buffer.alloc(0)],
      [2, null],
    ]);
  });

  it('reads each dead letter value (null apart from empty) and its source headers', () => {
    const dead = (headers: Record<string, string>, value: Buffer | null): InRecord => ({
      ...rec(0, 0, { 'cs-run-id': 'r1', 'cs-seq': '3', ...headers }),
      value,
    });
    const read = extractRun(
      [
        dead(
          { 'cs-source-topic': 'raw', 'cs-source-partition': '2', 'cs-source-offset': '41' },
          null,
        ),
        dead({ 'cs-source-partition': '-1', 'cs-source-offset': '041' }, Buffer.alloc(0)),
      ],
      { kind: 'dlq', runId: 'r1', ends },
    );
    const r = read.contents.records;
    expect(r?.kind).toBe('dlq');
    if (r?.kind !== 'dlq') return;
    expect(r.values).toEqual([null, Buffer.alloc(0)]);
    expect(r.sourceTopics).toEqual(['raw', null]);
    expect(Array.from(r.sourcePartitions)).toEqual([2, NaN]);
    expect(Array.from(r.sourceOffsets)).toEqual([41, NaN]);
  });

  it('reads each valid record partition and decoded ingest_time (NaN when it does not decode)', () => {
    const e: ClickEvent = {
      event_id: '00000000-0000-4000-8000-000000000001',
      seq: 1,
      run_id: 'r1',
      event_type: 'page_view',
      event_time: 1_700_000_000_000,
      session_id: 's',
      user_id: null,
      page: '/',
      product_id: null,
      quantity: null,
      amount_cents: null,
      currency: null,
      device: null,
      ingest_time: 1_700_000_000_123,
    };
    const event = encodeEvent(e, CANONICAL_VERSION);
    const read = extractRun(
      [
        {
          ...rec(4, 0, { 'cs-run-id': 'r1', 'cs-seq': '1' }),
          value: event,
          timestamp: 1_700_000_000_123,
        },
        { ...rec(0, 1, { 'cs-run-id': 'r1', 'cs-seq': '2' }), value: Buffer.from('junk') },
      ],
      {
        kind: 'valid',
        runId: 'r1',
        ends: new Map([
          [0, 10],
          [4, 10],
        ]),
      },
    );
    const r = read.contents.records;
    expect(r?.kind).toBe('valid');
    if (r?.kind !== 'valid') return;
    expect(Array.from(r.partitions)).toEqual([4, 0]);
    expect(Array.from(r.ingestTimes)).toEqual([1_700_000_000_123, NaN]);
    expect(read.contents.notes.join()).toContain('1 record(s) of this run did not decode');
  });

  it('an empty topic gives empty contents', () => {
    expect(extractRun([], { kind: 'valid', runId: 'r1', ends }).contents.seqs.length).toBe(0);
  });
});

describe('readKafkaLayer notes', () => {
  const records = [rec(0, 5, { 'cs-run-id': 'r1', 'cs-seq': '3' })];
  const o = { topic: 't', kind: 'clean' as const, runId: 'r1', ends: new Map([[0, 10]]) };

  it('says where the read started and by which reader, and nothing about deletions when none cut the read', async () => {
    const source = {
      ...recordsTopicSource({ t: records }),
      from: 'from the start',
      reader: 'by x',
    };
    const read = await readKafkaLayer(source, o);
    expect(read.ok && read.contents.notes).toEqual([
      'topic t: 1 record(s) read from the start by x',
    ]);
  });

  it('names the partitions whose read began at a log start that deletions had moved', async () => {
    const plain = recordsTopicSource({ t: records });
    const source: TopicSource = {
      ...plain,
      scan: async (topic, want, visit) => ({
        ...(await plain.scan(topic, want, visit)),
        trimmed: [
          { partition: 0, logStart: 5 },
          { partition: 3, logStart: 12 },
        ],
      }),
    };
    const read = await readKafkaLayer(source, o);
    expect(read.ok && read.contents.notes[1]).toBe(
      'topic t: the read of partition(s) 0 (log start 5), 3 (log start 12) began at the log start, ' +
        "and the records before it had been deleted (retention, or DeleteRecords): any of this run's " +
        'records among them are reported missing',
    );
  });
});
