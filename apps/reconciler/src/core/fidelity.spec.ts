import fc from 'fast-check';
import type { LayerReport } from '@clickstream/contracts';
import type { DlqRecords, LayerRead, RawRecords, ValidRecords } from './contents';
import { indexLedger } from './ledger-index';
import { reconcile } from './reconcile';
import { poisonSend, RUN, validSend } from '../../test/ledger-rows';

// seq 0..3 valid, 4 poison (bad_magic) whose value is 3 bytes, 5 poison (empty) whose value is empty.
const LEDGER = [
  validSend(0),
  validSend(1),
  validSend(2),
  validSend(3),
  poisonSend(4),
  poisonSend(5, 'empty'),
];
const RAW_TOPIC = 'clickstream.raw';
const POISON_BYTES = Buffer.from([0x7b, 0x22, 0x61]);

interface Pipeline {
  raw: { seqs: number[]; records: RawRecords };
  valid: { seqs: number[]; records: ValidRecords };
  dlq: { seqs: number[]; records: DlqRecords };
}

/** What an exact gatekeeper leaves: each output in its raw record's partition, stamped with its timestamp, poison unchanged. */
function exactPipeline(): Pipeline {
  const rawSeqs = [0, 1, 2, 3, 4, 5];
  const partition = (seq: number): number => seq % 3;
  const offset = (seq: number): number => 100 + seq;
  const time = (seq: number): number => 1_700_000_000_000 + 7 * seq;
  return {
    raw: {
      seqs: rawSeqs,
      records: {
        kind: 'raw',
        topic: RAW_TOPIC,
        partitions: rawSeqs.map(partition),
        offsets: rawSeqs.map(offset),
        timestamps: rawSeqs.map(time),
        values: new Map<number, Buffer | null>([
          [4, POISON_BYTES],
          [5, Buffer.alloc(0)],
        ]),
      },
    },
    valid: {
      seqs: [3, 1, 0, 2],
      records: {
        kind: 'valid',
        partitions: [3, 1, 0, 2].map(partition),
        ingestTimes: [3, 1, 0, 2].map(time),
      },
    },
    dlq: {
      seqs: [5, 4],
      records: {
        kind: 'dlq',
        values: [Buffer.alloc(0), Buffer.from(POISON_BYTES)],
        sourceTopics: [RAW_TOPIC, RAW_TOPIC],
        sourcePartitions: [partition(5), partition(4)],
        sourceOffsets: [offset(5), offset(4)],
      },
    },
  };
}

function read(seqs: number[], extra: object): LayerRead {
  return { ok: true, contents: { seqs, foreign: 0, notes: [], readMs: 1, ...extra } };
}

function reconcileAll(p: Pipeline, withRaw = true): Record<string, LayerReport> {
  const report = reconcile({
    ledger: indexLedger(LEDGER),
    manifestSends: LEDGER.length,
    runId: RUN,
    layers: [
      ...(withRaw
        ? [
            {
              layer: 'clickstream.raw' as const,
              read: read(p.raw.seqs, { records: p.raw.records }),
            },
          ]
        : []),
      { layer: 'events.valid', read: read(p.valid.seqs, { records: p.valid.records }) },
      {
        layer: 'events.dlq',
        read: read(p.dlq.seqs, { records: p.dlq.records, reasons: ['empty', 'bad_magic'] }),
      },
    ],
  });
  return Object.fromEntries(report.layers.map((l) => [l.layer, l]));
}

describe('fidelity: valid and dead letters against their raw records', () => {
  it('an exact gatekeeper: every layer exact, differing 0', () => {
    const r = reconcileAll(exactPipeline());
    expect(r['events.valid']).toMatchObject({ verdict: 'exact', differing: { count: 0 } });
    expect(r['events.dlq']).toMatchObject({ verdict: 'exact', differing: { count: 0 } });
  });

  it('a valid record in another partition than its raw record', () => {
    const p = exactPipeline();
    (p.valid.records.partitions as number[])[1] = 2; // seq 1 belongs in partition 1
    const l = reconcileAll(p)['events.valid'] as LayerReport;
    expect(l.verdict).toBe('inexact');
    expect(l.differing).toEqual({
      count: 1,
      examples: [{ seq: 1, field: 'partition', expected: 1, observed: 2 }],
    });
  });

  it('an ingest_time that is not the raw record timestamp, or none at all', () => {
    const p = exactPipeline();
    (p.valid.records.ingestTimes as number[])[0] = 1_700_000_000_022; // seq 3: raw says ...021
    (p.valid.records.ingestTimes as number[])[2] = NaN; // seq 0: undecodable or no ingest_time
    const l = reconcileAll(p)['events.valid'] as LayerReport;
    expect(l.verdict).toBe('inexact');
    expect(l.differing).toEqual({
      count: 2,
      examples: [
        { seq: 3, field: 'ingest_time', expected: 1_700_000_000_021, observed: 1_700_000_000_022 },
        { seq: 0, field: 'ingest_time', expected: 1_700_000_000_000, observed: null },
      ],
    });
  });

  it('one byte of a dead letter changed', () => {
    const p = exactPipeline();
    (p.dlq.records.values[1] as Buffer)[2] = 0x62;
    const l = reconcileAll(p)['events.dlq'] as LayerReport;
    expect(l.verdict).toBe('inexact');
    expect(l.differing?.count).toBe(1);
    expect(l.differing?.examples[0]).toMatchObject({ seq: 4, field: 'value', first_difference: 2 });
  });

  it('an empty value dead-lettered as null (and null as empty) differs', () => {
    const p = exactPipeline();
    (p.dlq.records.values as (Buffer | null)[])[0] = null;
    const l = reconcileAll(p)['events.dlq'] as LayerReport;
    expect(l.verdict).toBe('inexact');
    expect(l.differing?.examples).toEqual([
      {
        seq: 5,
        field: 'value',
        expected: { bytes: 0, head: '' },
        observed: null,
        first_difference: null,
      },
    ]);
    const q = exactPipeline();
    (q.raw.records.values as Map<number, Buffer | null>).set(5, null);
    expect(reconcileAll(q)['events.dlq']?.differing?.count).toBe(1);
  });

  it('a dead letter whose source offset, partition or topic is not its raw record', () => {
    for (const corrupt of [
      (d: DlqRecords) => ((d.sourceOffsets as number[])[1] = 105),
      (d: DlqRecords) => ((d.sourcePartitions as number[])[1] = NaN),
      (d: DlqRecords) => ((d.sourceTopics as (string | null)[])[0] = 'clickstream.raw.v0'),
    ]) {
      const p = exactPipeline();
      corrupt(p.dlq.records);
      const l = reconcileAll(p)['events.dlq'] as LayerReport;
      expect(l.verdict).toBe('inexact');
      expect(l.differing?.count).toBe(1);
      expect(l.differing?.examples[0]).toMatchObject({ field: 'source' });
    }
  });

  it('a wrong reason and a wrong source on one dead letter are two differing findings', () => {
    const p = exactPipeline();
    (p.dlq.records.sourceOffsets as number[])[0] = 0;
    const report = reconcile({
      ledger: indexLedger(LEDGER),
      manifestSends: LEDGER.length,
      runId: RUN,
      layers: [
        { layer: 'clickstream.raw', read: read(p.raw.seqs, { records: p.raw.records }) },
        {
          layer: 'events.dlq',
          read: read(p.dlq.seqs, { records: p.dlq.records, reasons: ['truncated', 'bad_magic'] }),
        },
      ],
    });
    expect(report.layers[1]?.differing?.count).toBe(2);
  });

  it('without raw in the reconciliation the promises are not checked, and the notes say so', () => {
    const p = exactPipeline();
    (p.valid.records.partitions as number[])[1] = 2;
    const r = reconcileAll(p, false);
    expect(r['events.valid']?.differing?.count).toBe(0);
    expect(r['events.valid']?.notes.join()).toContain(
      'partition and ingest_time not checked: clickstream.raw was not read',
    );
    expect(r['events.dlq']?.notes.join()).toContain('value bytes and source not checked');
  });

  it('a record whose seq raw holds twice is not checked (raw reports the duplicate)', () => {
    const p = exactPipeline();
    p.raw.seqs.push(1);
    (p.raw.records.partitions as number[]).push(0);
    (p.raw.records.offsets as number[]).push(200);
    (p.raw.records.timestamps as number[]).push(0);
    const r = reconcileAll(p);
    expect(r['clickstream.raw']?.verdict).toBe('inexact');
    expect(r['events.valid']?.notes.join()).toContain('1 record(s) not checked against raw');
  });

  it('any single corrupted field of any output record turns its layer inexact with differing 1', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('partition', 'ingest_time', 'value', 'offset', 'source_partition'),
        fc.nat(),
        fc.integer({ min: 1, max: 1000 }),
        (field, pick, delta) => {
          const p = exactPipeline();
          const v = p.valid.records;
          const d = p.dlq.records;
          let layer: 'events.valid' | 'events.dlq' = 'events.dlq';
          if (field === 'partition' || field === 'ingest_time') {
            layer = 'events.valid';
            const arr = (field === 'partition' ? v.partitions : v.ingestTimes) as number[];
            arr[pick % arr.length] = (arr[pick % arr.length] as number) + delta;
          } else if (field === 'value') {
            const i = pick % d.values.length;
            const old = d.values[i] as Buffer;
            (d.values as (Buffer | null)[])[i] = Buffer.concat([old, Buffer.from([delta & 0xff])]);
          } else {
            const arr = (field === 'offset' ? d.sourceOffsets : d.sourcePartitions) as number[];
            arr[pick % arr.length] = (arr[pick % arr.length] as number) + delta;
          }
          const l = reconcileAll(p)[layer] as LayerReport;
          return l.verdict === 'inexact' && l.differing?.count === 1;
        },
      ),
      { numRuns: 300 },
    );
  });
});
