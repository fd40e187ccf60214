import { encodeWindowAggregate, HEADERS, type WindowAggregate } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import { latestPerKey, WINDOW_EMISSIONS } from './aggregates';
import { AGG_T0 as T0, windowAggregate } from '../../test/aggregate-rows';

const win = windowAggregate;

function rec(offset: number, w: WindowAggregate | Buffer, key?: string): InRecord {
  const value = Buffer.isBuffer(w) ? w : encodeWindowAggregate(w);
  const k = key ?? (Buffer.isBuffer(w) ? 'r1|x' : `${w.run_id}|${w.window_start}|${w.event_type}`);
  return {
    topic: 'agg.windows',
    partition: 0,
    offset,
    key: Buffer.from(k),
    value,
    headers: { [HEADERS.runId]: Buffer.from('r1') },
    timestamp: T0,
  };
}

const ends = new Map([[0, 100]]);

describe('latestPerKey', () => {
  it('the empty topic holds no row', () => {
    expect(latestPerKey([], 'r1', ends, WINDOW_EMISSIONS).rows.toObjects()).toEqual([]);
  });

  it('keeps the highest version per key whatever the order, and ignores other runs and records past the end offsets', () => {
    const c = latestPerKey(
      [
        rec(0, win({ version: 2, event_count: 2, is_final: true })),
        rec(1, win({ version: 1 })),
        rec(2, win({ run_id: 'r2', version: 9 })),
        rec(100, win({ version: 3, event_count: 3 })),
      ],
      'r1',
      ends,
      WINDOW_EMISSIONS,
    );
    expect(c.rows.toObjects()).toEqual([
      {
        key: `r1|${T0}|page_view`,
        values: {
          window_end: T0 + 10_000,
          event_count: 2,
          amount_cents_sum: 0,
          distinct_sessions: 1,
        },
        version: 2,
        isFinal: true,
        retracted: false,
      },
    ]);
    expect(c.foreign).toBe(1);
    expect(c.conflicts).toEqual([]);
  });

  it('reports two different emissions of the latest version, and undecodable records of the run', () => {
    const c = latestPerKey(
      [
        rec(0, win({ version: 2, event_count: 2 })),
        rec(1, win({ version: 2, event_count: 5 })),
        rec(2, Buffer.from([0xc3, 0x01, 0])),
      ],
      'r1',
      ends,
      WINDOW_EMISSIONS,
    );
    expect(c.conflicts).toEqual([{ key: `r1|${T0}|page_view`, version: 2 }]);
    expect(c.undecodable.count).toBe(1);
  });

  it('notes records whose Kafka key is not the key of their value', () => {
    const c = latestPerKey([rec(0, win(), 'r1|0|page_view')], 'r1', ends, WINDOW_EMISSIONS);
    expect(c.notes.join()).toContain('1 record(s) whose Kafka key');
  });
});

describe('LatestPerKey: conflicts keep the order a Map of them had', () => {
  const other = (over: Partial<WindowAggregate>) => win({ event_type: 'click', ...over });

  it('a conflict cleared by a newer version and raised again goes last', () => {
    const c = latestPerKey(
      [
        rec(0, win({ version: 1 })),
        rec(1, win({ version: 1, event_count: 9 })),
        rec(2, other({ version: 1 })),
        rec(3, other({ version: 1, is_final: true })),
        rec(4, win({ version: 2 })),
        rec(5, win({ version: 2, amount_cents_sum: 5 })),
        rec(6, other({ version: 1, event_count: 7 })),
      ],
      'r1',
      ends,
      WINDOW_EMISSIONS,
    );
    expect(c.conflicts).toEqual([
      { key: `r1|${T0}|click`, version: 1 },
      { key: `r1|${T0}|page_view`, version: 2 },
    ]);
    expect(c.rows.toObjects().map((r) => [r.key, r.version])).toEqual([
      [`r1|${T0}|page_view`, 2],
      [`r1|${T0}|click`, 1],
    ]);
  });

  it('an emission equal to the latest one is no conflict, and a record without a key has the wrong key', () => {
    const c = latestPerKey(
      [rec(0, win()), { ...rec(1, win()), key: null }],
      'r1',
      ends,
      WINDOW_EMISSIONS,
    );
    expect(c.conflicts).toEqual([]);
    expect(c.notes.join()).toContain('1 record(s) whose Kafka key');
  });
});
