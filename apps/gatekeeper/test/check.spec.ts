import { HEADERS, encodeEvent } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import { routeRecord } from '../src/route';
import { checkExactlyOnce } from './check';
import { NOW, POISON, sampleEvent, seqHeaders } from './fixtures';
import type { Fate } from './harness';

const topics = { valid: 'valid', dlq: 'dlq' };

function raw(seq: number, value: Buffer, offset: number): InRecord {
  return {
    topic: 'raw',
    partition: 2,
    offset,
    key: Buffer.from(`k${seq}`),
    value,
    headers: seqHeaders(seq, 'r'),
    timestamp: NOW,
  };
}

/** What the topics would hold if the gatekeeper did its job: route() applied once to every raw record. */
function consumed(records: InRecord[], topic: string): InRecord[] {
  return records
    .map((r) => routeRecord(r, topics).out)
    .filter((o) => o.topic === topic)
    .map((o, i) => ({
      topic,
      partition: o.partition ?? 0,
      offset: i,
      key: o.key as Buffer | null,
      value: o.value,
      headers: o.headers as Record<string, Buffer>,
      timestamp: o.timestamp ?? 0,
    }));
}

describe('checkExactlyOnce', () => {
  const fates = new Map<number, Fate>([
    [1, 'valid'],
    [2, 'bad_magic'],
    [3, 'valid'],
  ]);
  const rawRecords = [
    raw(1, encodeEvent(sampleEvent('page_view', 1, 'r', NOW)), 0),
    raw(2, POISON.bad_magic(2, 'r', NOW), 1),
    raw(3, encodeEvent(sampleEvent('page_view', 3, 'r', NOW)), 2),
  ];
  const valid = consumed(rawRecords, 'valid');
  const dlq = consumed(rawRecords, 'dlq');

  it('passes the empty run and a correct run', () => {
    expect(checkExactlyOnce(new Map(), [], [], []).problems).toEqual([]);
    expect(checkExactlyOnce(fates, rawRecords, valid, dlq)).toEqual({
      problems: [],
      counts: { raw: 3, valid: 2, dlq: 1 },
    });
  });

  it('finds a missing, a duplicated, a misordered and a misclassified record', () => {
    expect(checkExactlyOnce(fates, rawRecords, valid.slice(1), dlq).problems).toEqual([
      'seq 1 (valid) is in neither valid nor dlq',
    ]);
    expect(
      checkExactlyOnce(fates, rawRecords, [...valid, valid[1] as InRecord], dlq).problems,
    ).toEqual(expect.arrayContaining(['seq 3 twice (valid and valid)']));
    expect(
      checkExactlyOnce(fates, rawRecords, [valid[1] as InRecord, valid[0] as InRecord], dlq)
        .problems,
    ).toEqual(['valid: partition 2 out of raw order at seq 1']);
    const wrongReason = new Map(fates).set(2, 'empty');
    expect(checkExactlyOnce(wrongReason, rawRecords, valid, dlq).problems).toEqual([
      'dlq: seq 2 has reason bad_magic, expected empty',
    ]);
    const forged = dlq.map((d) => ({ ...d, value: Buffer.from('other') }));
    expect(checkExactlyOnce(fates, rawRecords, valid, forged).problems).toEqual([
      'dlq: seq 2 value changed',
    ]);
    const moved = dlq.map((d) => ({
      ...d,
      headers: { ...d.headers, [HEADERS.sourceOffset]: Buffer.from('9') },
    }));
    expect(checkExactlyOnce(fates, rawRecords, valid, moved).problems).toEqual([
      'dlq 2@0: source 2@9 is not a raw record',
      'seq 2 (bad_magic) is in neither valid nor dlq',
    ]);
  });
});
