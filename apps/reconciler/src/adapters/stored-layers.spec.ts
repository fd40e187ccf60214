import { Readable } from 'stream';
import { runRecordsRowBinary } from '@clickstream/warehouse';
import type { LedgerRow } from '@clickstream/contracts';
import type { LayerContents, LayerRead } from '../core/contents';
import { NO_SEQ, SEQ_OUT_OF_RANGE } from '../core/contents';
import { indexLedger } from '../core/ledger-index';
import { reconcile } from '../core/reconcile';
import { duplicateSend, RUN, validSend } from '../../test/ledger-rows';
import { isStoredLayer, portableRead, readStoredLayers } from './stored-layers';
import type { SqlSource } from './clickhouse';

// seq 0, 1, 2 valid; 3 a duplicate of 1 (its event_id is e-1).
const LEDGER: LedgerRow[] = [validSend(0), validSend(1), validSend(2), duplicateSend(3, 1)];

function clean(seqs: number[], eventIds: (string | null)[]): LayerRead {
  return { ok: true, contents: { seqs, eventIds, foreign: 0, notes: [], readMs: 1 } };
}

function report(read: LayerRead) {
  const ledger = indexLedger(LEDGER);
  return reconcile({
    ledger,
    manifestSends: LEDGER.length,
    runId: RUN,
    now: 0,
    layers: [{ layer: 'iceberg.clean', read }],
  }).layers[0];
}

describe('portableRead: event ids checked before crossing threads', () => {
  const ledgerIds = indexLedger(LEDGER).eventIds;

  it('the empty layer and a failed read stay as they are', () => {
    const empty = portableRead(clean([], []), ledgerIds);
    expect(empty.ok && empty.contents.eventIds).toBeUndefined();
    expect(empty.ok && Array.from(empty.contents.eventIdCheck?.differs ?? [9])).toEqual([]);
    const failed: LayerRead = { ok: false, error: 'down', readMs: 3 };
    expect(portableRead(failed, ledgerIds)).toBe(failed);
  });

  it('contents without event ids are not touched', () => {
    const read: LayerRead = { ok: true, contents: { seqs: [0], foreign: 0, notes: [], readMs: 1 } };
    expect(portableRead(read, ledgerIds)).toEqual(read);
  });

  it.each([
    ['every id as the ledger says', [0, 1, 2], ['e-0', 'e-1', 'e-2']],
    ['a wrong id, a missing id', [0, 1, 2], ['e-0', 'e-9', null]],
    ['the duplicate with its own seq and the first send id', [0, 3, 2], ['e-0', 'e-1', 'e-2']],
    ['seqs the ledger does not hold', [0, 7, NO_SEQ, SEQ_OUT_OF_RANGE], ['e-0', 'e-7', null, 'x']],
    ['a record twice, one with another id', [0, 0, 1, 2], ['e-0', 'e-x', 'e-1', 'e-2']],
  ])('gives the report the strings would: %s', (_name, seqs, ids) => {
    const strings = clean(seqs, ids);
    const checked = portableRead(strings, ledgerIds);
    expect(checked.ok && checked.contents.eventIds).toBeUndefined();
    expect(report(checked)).toEqual(report(strings));
  });

  it('keeps the observed id of the records that differ only', () => {
    const checked = portableRead(clean([0, 1, 2], ['e-0', 'e-9', null]), ledgerIds);
    const c = (checked as { contents: LayerContents }).contents;
    expect(Array.from(c.eventIdCheck?.differs ?? [])).toEqual([0, 1, 1]);
    expect([...(c.eventIdCheck?.observed ?? [])]).toEqual([
      [1, 'e-9'],
      [2, null],
    ]);
    expect(report(checked)?.unexpected.examples).toEqual([
      { seq: 1, why: 'event_id differs from the ledger', expected: 'e-1', observed: 'e-9' },
      { seq: 2, why: 'event_id differs from the ledger', expected: 'e-2', observed: null },
    ]);
  });
});

describe('readStoredLayers', () => {
  const request = {
    runId: RUN,
    topics: { valid: 'events.valid', dlq: 'events.dlq', clean: 'events.clean' },
    icebergTablePath: '/nowhere',
    examples: 5,
  };

  it('only the ClickHouse and Iceberg event layers are stored layers', () => {
    expect(
      ['clickstream.raw', 'events.valid', 'clickhouse.dlq', 'iceberg.clean'].map((l) =>
        isStoredLayer(l as never),
      ),
    ).toEqual([false, false, true, true]);
  });

  it('reads nothing when no stored layer is asked for', async () => {
    const sql = jest.fn();
    const reads = await readStoredLayers({ sql }, { ...request, layers: ['clickstream.raw'] });
    expect(reads.size).toBe(0);
    expect(sql).not.toHaveBeenCalled();
  });

  it('reads each asked table in order, then Iceberg, and reports each read as it is made', async () => {
    const queries: string[] = [];
    const source: SqlSource = {
      query: <T>(q: string): Promise<T[]> => {
        queries.push(q);
        return Promise.resolve([{ other_runs: 1 }] as T[]);
      },
      queryStream: (q: string) => {
        queries.push(q);
        const row = runRecordsRowBinary(
          [{ seq: 0, kafka_topic: 'events.valid', kafka_partition: 0, kafka_offset: 0, copies: 1 }],
          'valid',
          'events.valid',
        );
        return Promise.resolve(Readable.from([row]));
      },
    };
    const done: string[] = [];
    const reads = await readStoredLayers(
      {
        sql: () => source,
        iceberg: () => Promise.resolve({ ok: false, error: 'no table', readMs: 0 }),
      },
      { ...request, layers: ['iceberg.clean', 'clickhouse.valid'] },
      (layer) => done.push(layer),
    );
    expect(done).toEqual(['clickhouse.valid', 'iceberg.clean']);
    expect(queries[0]).toContain('FROM events_valid');
    const valid = reads.get('clickhouse.valid');
    expect(valid?.ok && Array.from(valid.contents.seqs)).toEqual([0]);
    expect(valid?.ok && valid.contents.foreign).toBe(1);
    expect(reads.get('iceberg.clean')).toEqual({ ok: false, error: 'no table', readMs: 0 });
  });
});
