import type { InRecord } from '@clickstream/kafka-tx';
import { NO_SEQ, SEQ_OUT_OF_RANGE } from '../core/contents';
import { extractRun } from './kafka';

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

  it('an empty topic gives empty contents', () => {
    expect(extractRun([], { kind: 'valid', runId: 'r1', ends }).contents.seqs.length).toBe(0);
  });
});
