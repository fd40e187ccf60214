import type { RunRecord, RunRecords } from '@clickstream/warehouse';
import { indexLedger } from '../core/ledger-index';
import { reconcile } from '../core/reconcile';
import { duplicateSend, RUN, validSend } from '../../test/ledger-rows';
import { toContents } from './clickhouse';

const TOPIC = 'events.clean';

function rec(seq: number, offset: number, over: Partial<RunRecord> = {}): RunRecord {
  return {
    seq,
    event_id: `e-${seq}`,
    kafka_topic: TOPIC,
    kafka_partition: 0,
    kafka_offset: offset,
    copies: 1,
    ...over,
  };
}

function read(records: RunRecord[]): RunRecords {
  return {
    table: 'events_clean',
    records,
    raw: records.reduce((n, r) => n + r.copies, 0),
    otherRuns: 2,
  };
}

// seq 0, 1, 2 valid; 3 a duplicate of 1 injected by the generator.
const LEDGER = [validSend(0), validSend(1), validSend(2), duplicateSend(3, 1)];

function cleanReport(records: RunRecord[]) {
  const contents = toContents(read(records), { kind: 'clean', topic: TOPIC }, 1);
  const report = reconcile({
    ledger: indexLedger(LEDGER),
    manifestSends: LEDGER.length,
    runId: RUN,
    layers: [{ layer: 'clickhouse.clean', read: { ok: true, contents } }],
  });
  return report.layers[0]!;
}

describe('ClickHouse clean table read without FINAL', () => {
  it("the loader's own redeliveries (same topic/partition/offset) are one record and a note: exact", () => {
    const l = cleanReport([rec(0, 10, { copies: 3 }), rec(1, 11), rec(2, 12)]);
    expect(l).toMatchObject({ verdict: 'exact', observed: 3 });
    expect(l.notes.join('|')).toContain(
      "2 stored row(s) are the loader's redeliveries of a record already counted",
    );
    expect(l.notes.join('|')).toContain('5 stored row(s) of this run (read without FINAL)');
  });

  it('two Kafka records of one event (two offsets) are duplicated, even though FINAL would show one row', () => {
    const l = cleanReport([rec(0, 10), rec(1, 11), rec(1, 13), rec(2, 12)]);
    expect(l.verdict).toBe('inexact');
    expect(l.duplicated).toEqual({ count: 1, examples: [{ seq: 1, copies: 2 }] });
  });

  it("the generator's duplicate and its original both loaded: duplicated under the first seq", () => {
    const l = cleanReport([rec(0, 10), rec(1, 11), rec(3, 14, { event_id: 'e-1' }), rec(2, 12)]);
    expect(l.duplicated).toEqual({ count: 1, examples: [{ seq: 1, copies: 2 }] });
  });

  it('a row loaded from another topic is unexpected (and does not count for its event)', () => {
    const l = cleanReport([rec(0, 10), rec(1, 11), rec(2, 12, { kafka_topic: 'events.valid' })]);
    expect(l.verdict).toBe('inexact');
    expect(l.unexpected).toEqual({
      count: 1,
      examples: [
        {
          seq: 2,
          why: 'row loaded from topic "events.valid"; events_clean is fed from "events.clean"',
        },
      ],
    });
    expect(l.missing).toEqual({ count: 1, examples: [{ seq: 2 }] });
  });

  it('an empty table of this run gives empty contents, other runs counted', () => {
    const c = toContents(read([]), { kind: 'clean', topic: TOPIC }, 0);
    expect(c.seqs.length).toBe(0);
    expect(c.foreign).toBe(2);
    expect(c.unexpected).toBeUndefined();
  });

  it('dead letters keep their reason, and only the clean kind carries event ids', () => {
    const c = toContents(
      read([rec(5, 1, { kafka_topic: 'events.dlq', reason: 'empty', event_id: undefined })]),
      { kind: 'dlq', topic: 'events.dlq' },
      0,
    );
    expect(c.reasons).toEqual(['empty']);
    expect(c.eventIds).toBeUndefined();
  });
});
