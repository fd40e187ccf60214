import { encodeEvent } from '../event/wire';
import type { ClickEvent } from '../event/types';
import { splitSingleObjects } from './split';

const event = (seq: number): ClickEvent => ({
  event_id: '00000000-0000-4000-8000-00000000000' + String(seq % 10),
  seq,
  run_id: 'r',
  event_type: 'page_view',
  event_time: 1_764_000_000_000 + seq,
  session_id: 's',
  user_id: null,
  page: '/p',
  product_id: null,
  quantity: null,
  amount_cents: null,
  currency: null,
  device: 'mobile',
  ingest_time: null,
});

describe('splitSingleObjects', () => {
  it('splits v1 and v2 records written back to back, bytes unchanged', () => {
    const a = encodeEvent(event(1), 2);
    const b = encodeEvent(event(2), 1);
    const c = encodeEvent(event(3), 2);
    expect(splitSingleObjects(Buffer.concat([a, b, c]), 10)).toEqual({
      records: [a, b, c],
      rest: Buffer.alloc(0),
    });
  });

  it('leaves what cannot be delimited in rest, and stops at maxRecords', () => {
    const a = encodeEvent(event(1));
    const junk = Buffer.from([0xc3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(splitSingleObjects(Buffer.concat([a, junk]), 10)).toEqual({ records: [a], rest: junk });
    expect(splitSingleObjects(a.subarray(0, a.length - 2), 10).records).toEqual([]);
    expect(splitSingleObjects(Buffer.concat([a, a]), 1)).toEqual({ records: [a], rest: a });
    expect(splitSingleObjects(Buffer.from('{"x":1}'), 10).rest.toString()).toBe('{"x":1}');
  });
});
