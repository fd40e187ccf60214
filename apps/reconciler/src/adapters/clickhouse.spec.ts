import { Readable } from 'stream';
import { runRecordsRowBinary, type EventTableRole, type RunRecord } from '@clickstream/warehouse';
import { indexLedger } from '../core/ledger-index';
import { reconcile } from '../core/reconcile';
import { duplicateSend, RUN, validSend } from '../../test/ledger-rows';
import type { LayerContents } from '../core/contents';
import type { LayerKind } from '../core/expectation';
import { readClickHouseLayer, type SqlSource } from './clickhouse';

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

/** A warehouse that holds `records` of this run and 2 rows of other runs, in the table of `role`. */
function tableOf(records: RunRecord[], role: EventTableRole, topic: string): SqlSource {
  return {
    query: <T>() => Promise.resolve([{ other_runs: 2 }] as T[]),
    queryStream: () => Promise.resolve(Readable.from([runRecordsRowBinary(records, role, topic)])),
  };
}

/** The contents readClickHouseLayer makes of `records`. */
async function contentsOf(
  records: RunRecord[],
  o: { role: EventTableRole; kind: LayerKind; topic: string } = {
    role: 'clean',
    kind: 'clean',
    topic: TOPIC,
  },
): Promise<LayerContents> {
  const read = await readClickHouseLayer(tableOf(records, o.role, o.topic), { ...o, runId: RUN });
  if (!read.ok) throw new Error(read.error);
  return read.contents;
}

// seq 0, 1, 2 valid; 3 a duplicate of 1 injected by the generator.
const LEDGER = [validSend(0), validSend(1), validSend(2), duplicateSend(3, 1)];

async function cleanReport(records: RunRecord[]) {
  const contents = await contentsOf(records);
  const report = reconcile({
    ledger: indexLedger(LEDGER),
    manifestSends: LEDGER.length,
    runId: RUN,
    layers: [{ layer: 'clickhouse.clean', read: { ok: true, contents } }],
  });
  return report.layers[0]!;
}

describe('ClickHouse clean table read without FINAL', () => {
  it("the loader's own redeliveries (same topic/partition/offset) are one record and a note: exact", async () => {
    const l = await cleanReport([rec(0, 10, { copies: 3 }), rec(1, 11), rec(2, 12)]);
    expect(l).toMatchObject({ verdict: 'exact', observed: 3 });
    expect(l.notes.join('|')).toContain(
      "2 stored row(s) are the loader's redeliveries of a record already counted",
    );
    expect(l.notes.join('|')).toContain('5 stored row(s) of this run (read without FINAL)');
  });

  it('two Kafka records of one event (two offsets) are duplicated, even though FINAL would show one row', async () => {
    const l = await cleanReport([rec(0, 10), rec(1, 11), rec(1, 13), rec(2, 12)]);
    expect(l.verdict).toBe('inexact');
    expect(l.duplicated).toEqual({ count: 1, examples: [{ seq: 1, copies: 2 }] });
  });

  it("the generator's duplicate and its original both loaded: duplicated under the first seq", async () => {
    const l = await cleanReport([
      rec(0, 10),
      rec(1, 11),
      rec(3, 14, { event_id: 'e-1' }),
      rec(2, 12),
    ]);
    expect(l.duplicated).toEqual({ count: 1, examples: [{ seq: 1, copies: 2 }] });
  });

  it('a row loaded from another topic is unexpected (and does not count for its event)', async () => {
    const l = await cleanReport([
      rec(0, 10),
      rec(1, 11),
      rec(2, 12, { kafka_topic: 'events.valid' }),
    ]);
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

  it('an empty table of this run gives empty contents, other runs counted', async () => {
    const c = await contentsOf([]);
    expect(c.seqs.length).toBe(0);
    expect(c.foreign).toBe(2);
    expect(c.unexpected).toBeUndefined();
  });

  it('dead letters keep their reason, and only the clean kind carries event ids', async () => {
    const c = await contentsOf(
      [rec(5, 1, { kafka_topic: 'events.dlq', reason: 'empty', event_id: undefined })],
      { role: 'dlq', kind: 'dlq', topic: 'events.dlq' },
    );
    expect(c.reasons).toEqual(['empty']);
    expect(c.eventIds).toBeUndefined();
  });
});
