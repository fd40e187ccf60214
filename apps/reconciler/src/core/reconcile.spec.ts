import { ReconciliationReportSchema, type LayerReport } from '@clickstream/contracts';
import type { LayerContents, LayerRead } from './contents';
import { NO_SEQ } from './contents';
import type { EventLayer } from './layers';
import { indexLedger } from './ledger-index';
import { reconcile, resolvedByRaw } from './reconcile';
import { renderTable } from './table';
import { duplicateSend, poisonSend, RUN, validSend } from '../../test/ledger-rows';
import type { LedgerRow } from '@clickstream/contracts';

function contents(seqs: number[], extra: Partial<LayerContents> = {}): LayerRead {
  return { ok: true, contents: { seqs, foreign: 0, notes: [], readMs: 1, ...extra } };
}

function run(
  rows: LedgerRow[],
  layers: { layer: EventLayer; read: LayerRead }[],
  manifestSends: number | null = rows.length,
) {
  const report = reconcile({ ledger: indexLedger(rows), manifestSends, runId: RUN, layers });
  expect(ReconciliationReportSchema.safeParse(report).success).toBe(true);
  expect(renderTable(report)).toContain(report.verdict);
  return report;
}

function only(
  rows: LedgerRow[],
  layer: EventLayer,
  read: LayerRead,
  manifestSends?: number | null,
): LayerReport {
  const report = run(rows, [{ layer, read }], manifestSends);
  return report.layers[0] as LayerReport;
}

// seq 0,1,2 valid; 3 poison (bad_magic); 4 duplicate of 1.
const LEDGER = [validSend(0), validSend(1), validSend(2), poisonSend(3), duplicateSend(4, 1)];

describe('reconcile: the empty case', () => {
  it('an empty ledger confirmed by the manifest and empty layers is exact', () => {
    const report = run(
      [],
      [
        { layer: 'clickstream.raw', read: contents([]) },
        { layer: 'events.clean', read: contents([]) },
      ],
      0,
    );
    expect(report.verdict).toBe('exact');
    expect(report.layers.map((l) => l.verdict)).toEqual(['exact', 'exact']);
  });

  it('an empty ledger without a manifest proves nothing: unknown', () => {
    expect(only([], 'clickstream.raw', contents([]), null).verdict).toBe('unknown');
  });

  it('a ledger that disagrees with the manifest makes every layer unknown', () => {
    const l = only(LEDGER, 'clickstream.raw', contents([0, 1, 2, 3, 4]), 6);
    expect(l.verdict).toBe('unknown');
    expect(l.notes.join()).toContain('manifest says 6');
  });

  it('a run cut short is checked up to its ledger, never exact: its unflushed tail is unknown', () => {
    // Raw holds seq 5, sent after the ledger's last flushed batch.
    const report = reconcile({
      ledger: indexLedger(LEDGER),
      manifestSends: 0,
      cutShort: true,
      runId: RUN,
      layers: [
        { layer: 'clickstream.raw', read: contents([0, 1, 2, 3, 4, 5]) },
        { layer: 'events.dlq', read: contents([]) },
      ],
    });
    expect(report.verdict).toBe('unknown');
    const [raw, dlq] = report.layers as [LayerReport, LayerReport];
    expect(raw.verdict).toBe('unknown');
    expect(raw.notes.join()).toMatch(/cut short .* 5 send\(s\) up to its last flushed batch/);
    // The manifest's counts (written at the start) are not held against the ledger.
    expect(raw.notes.join()).not.toContain('manifest says');
    // What the ledger does cover is still checked: seq 3 (poison) is missing from the DLQ.
    expect(dlq.verdict).toBe('unknown');
    expect(dlq.missing.count).toBe(1);
  });

  it('no layer read is unknown overall, never exact', () => {
    expect(run(LEDGER, []).verdict).toBe('unknown');
  });

  it('a layer that is empty although sends were acknowledged is unknown', () => {
    const l = only(LEDGER, 'clickstream.raw', contents([]));
    expect(l.verdict).toBe('unknown');
    expect(l.missing.count).toBe(5);
  });

  it('a layer that could not be read is unknown, with the error', () => {
    const l = only(LEDGER, 'events.valid', { ok: false, error: 'broker down', readMs: 3 });
    expect(l.verdict).toBe('unknown');
    expect(l.notes[0]).toContain('broker down');
  });
});

describe('reconcile: raw', () => {
  it('every send once is exact', () => {
    const l = only(LEDGER, 'clickstream.raw', contents([4, 3, 2, 1, 0]));
    expect(l).toMatchObject({ verdict: 'exact', expected: 5, observed: 5 });
  });

  it('a missing send is flagged with its seq', () => {
    const l = only(LEDGER, 'clickstream.raw', contents([0, 1, 3, 4]));
    expect(l.verdict).toBe('inexact');
    expect(l.missing).toEqual({ count: 1, examples: [{ seq: 2 }] });
  });

  it('a send twice is a duplicate', () => {
    const l = only(LEDGER, 'clickstream.raw', contents([0, 1, 2, 3, 4, 2]));
    expect(l.duplicated).toEqual({ count: 1, examples: [{ seq: 2, copies: 2 }] });
    expect(l.verdict).toBe('inexact');
  });

  it('an unknown seq and a record without seq are unexpected', () => {
    const l = only(LEDGER, 'clickstream.raw', contents([0, 1, 2, 3, 4, 99, NO_SEQ]));
    expect(l.unexpected.count).toBe(2);
    expect(l.unexpected.examples).toEqual([
      { seq: 99, why: 'unknown seq (not in the ledger)' },
      { seq: null, why: 'record without a seq' },
    ]);
  });

  it('records of other runs are ignored but counted', () => {
    const l = only(LEDGER, 'clickstream.raw', contents([0, 1, 2, 3, 4], { foreign: 7 }));
    expect(l.verdict).toBe('exact');
    expect(l.notes).toContain('7 record(s) of other runs ignored');
  });
});

describe('reconcile: failed and unsent sends', () => {
  const rows = [
    validSend(0),
    validSend(1, { delivery: 'failed' }),
    validSend(2, { delivery: 'not_sent' }),
  ];

  it('a failed send may be absent or present once (a note, not an anomaly)', () => {
    for (const seqs of [[0], [0, 1]]) {
      const l = only(rows, 'clickstream.raw', contents(seqs));
      expect(l.verdict).toBe('exact');
      expect(l.expected).toBe(1);
      expect(l.notes.join()).toContain('failed indefinitely');
    }
  });

  it('a failed send present twice is a duplicate', () => {
    expect(only(rows, 'clickstream.raw', contents([0, 1, 1])).duplicated.count).toBe(1);
  });

  it('a failed send that raw shows was written: exactly once in every later layer', () => {
    const withRaw = (raw: number[], clean: number[]) =>
      run(rows, [
        { layer: 'clickstream.raw', read: contents(raw) },
        { layer: 'events.clean', read: contents(clean) },
      ]).layers.map((l) => [l.layer, l.verdict, l.missing.count]);
    // In raw but missing downstream: lost after raw, inexact.
    expect(withRaw([0, 1], [0])).toEqual([
      ['clickstream.raw', 'exact', 0],
      ['events.clean', 'inexact', 1],
    ]);
    expect(withRaw([0, 1], [0, 1])[1]).toEqual(['events.clean', 'exact', 0]);
    // Not in raw: absent downstream is right.
    expect(withRaw([0], [0])[1]).toEqual(['events.clean', 'exact', 0]);
    // Without raw in the reconciliation, a failed send stays at most once downstream.
    expect(only(rows, 'events.clean', contents([0])).verdict).toBe('exact');
  });

  it('a failed poison send that raw holds must be dead-lettered once', () => {
    const ledger = [validSend(0), poisonSend(1, 'bad_magic', { delivery: 'failed' })];
    const dlq = (raw: number[], dead: number[]) =>
      run(ledger, [
        { layer: 'clickstream.raw', read: contents(raw) },
        { layer: 'events.dlq', read: contents(dead, { reasons: dead.map(() => 'bad_magic') }) },
      ]).layers[1];
    expect(dlq([0, 1], [])).toMatchObject({ verdict: 'unknown', missing: { count: 1 } });
    expect(dlq([0, 1], [1])).toMatchObject({ verdict: 'exact', expected: 1 });
    expect(dlq([0], [])).toMatchObject({ expected: 0, missing: { count: 0 } });
  });

  it('the expectation of every later layer follows what raw holds, whatever the generator saw', () => {
    const ledger = indexLedger(rows);
    const resolved = resolvedByRaw(ledger, [{ layer: 'clickstream.raw', read: contents([0, 1]) }]);
    expect(Array.from(resolved.delivery)).toEqual([0, 0, 2]);
    // The generator's own view is left alone (raw is checked against it).
    expect(Array.from(ledger.delivery)).toEqual([0, 1, 2]);
    // Raw unreadable: nothing is resolved.
    expect(
      resolvedByRaw(ledger, [
        { layer: 'clickstream.raw', read: { ok: false, error: 'x', readMs: 0 } },
      ]),
    ).toBe(ledger);
  });

  it('a send that was never made but is present is unexpected', () => {
    const l = only(rows, 'clickstream.raw', contents([0, 2]));
    expect(l.unexpected.examples).toEqual([
      { seq: 2, why: 'seq never sent according to the ledger' },
    ]);
  });
});

describe('reconcile: valid and dlq', () => {
  it('valid holds the valid sends, duplicates of the generator included', () => {
    expect(only(LEDGER, 'events.valid', contents([0, 1, 2, 4])).verdict).toBe('exact');
  });

  it('poison in a valid layer is unexpected, as leaked poison', () => {
    const l = only(LEDGER, 'clickhouse.valid', contents([0, 1, 2, 3, 4]));
    expect(l.verdict).toBe('inexact');
    expect(l.unexpected.examples).toEqual([{ seq: 3, why: 'poison leaked into a valid layer' }]);
  });

  it('dlq holds the poison with its reason', () => {
    const l = only(LEDGER, 'events.dlq', contents([3], { reasons: ['bad_magic'] }));
    expect(l).toMatchObject({ verdict: 'exact', expected: 1, differing: { count: 0 } });
  });

  it('a wrong reason is a differing row', () => {
    const l = only(LEDGER, 'clickhouse.dlq', contents([3], { reasons: ['truncated'] }));
    expect(l.verdict).toBe('inexact');
    expect(l.differing).toEqual({
      count: 1,
      examples: [{ seq: 3, expected: 'bad_magic', observed: 'truncated' }],
    });
  });

  it('a valid event in the dlq is unexpected', () => {
    const l = only(LEDGER, 'events.dlq', contents([3, 0], { reasons: ['bad_magic', 'truncated'] }));
    expect(l.unexpected.examples).toEqual([
      { seq: 0, why: 'valid event in the dead-letter layer' },
    ]);
  });
});

describe('reconcile: clean (each distinct valid event once)', () => {
  it('the original or the duplicate copy counts for the event, not both', () => {
    expect(only(LEDGER, 'events.clean', contents([0, 1, 2])).verdict).toBe('exact');
    expect(only(LEDGER, 'iceberg.clean', contents([0, 4, 2])).verdict).toBe('exact');
    const both = only(LEDGER, 'clickhouse.clean', contents([0, 1, 2, 4]));
    expect(both.duplicated).toEqual({ count: 1, examples: [{ seq: 1, copies: 2 }] });
    expect(both.expected).toBe(3);
  });

  it('an event with no copy is missing under its first seq', () => {
    expect(only(LEDGER, 'events.clean', contents([0, 2])).missing.examples).toEqual([{ seq: 1 }]);
  });

  it('an event whose first send failed but whose duplicate was acked is expected once', () => {
    const rows = [validSend(0, { delivery: 'failed' }), duplicateSend(1, 0)];
    expect(only(rows, 'events.clean', contents([1])).verdict).toBe('exact');
    expect(only(rows, 'events.clean', contents([])).verdict).toBe('unknown');
    expect(only([...rows, validSend(2)], 'events.clean', contents([2])).missing.examples).toEqual([
      { seq: 0 },
    ]);
  });

  it('an event_id that differs from the ledger is unexpected', () => {
    const l = only(
      LEDGER,
      'iceberg.clean',
      contents([0, 1, 2], { eventIds: ['e-0', 'e-1', 'e-x'] }),
    );
    expect(l.unexpected.examples).toEqual([
      { seq: 2, why: 'event_id differs from the ledger', expected: 'e-2', observed: 'e-x' },
    ]);
  });
});

describe('reconcile: the overall verdict', () => {
  it('is inexact when any layer is, even if another is unknown', () => {
    const report = run(LEDGER, [
      { layer: 'clickstream.raw', read: contents([0, 1]) },
      { layer: 'events.valid', read: { ok: false, error: 'x', readMs: 0 } },
      { layer: 'events.dlq', read: contents([3], { reasons: ['bad_magic'] }) },
    ]);
    expect(report.layers.map((l) => l.verdict)).toEqual(['inexact', 'unknown', 'exact']);
    expect(report.verdict).toBe('inexact');
  });

  it('a ledger with a repeated seq is a ledger problem: unknown', () => {
    const l = only([validSend(0), validSend(0)], 'clickstream.raw', contents([0]));
    expect(l.verdict).toBe('unknown');
  });
});
