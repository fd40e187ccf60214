import {
  decodeSessionAggregate,
  decodeWindowAggregate,
  encodeSessionAggregate,
  encodeWindowAggregate,
  type SessionAggregate,
  type WindowAggregate,
} from '@clickstream/contracts';
import { SESSION_EMISSIONS, WINDOW_EMISSIONS } from './aggregate-wire';

const T0 = 1_700_000_000_000;

const SESSION: SessionAggregate = {
  run_id: 'r1',
  session_id: 's-1',
  session_start: T0,
  session_end: T0 + 5000,
  event_count: 3,
  revenue_cents: 1250,
  converted: true,
  version: 2,
  is_final: true,
  retracted: false,
  emitted_at: T0 + 9000,
};

const WINDOW: WindowAggregate = {
  run_id: 'r1',
  window_start: T0,
  window_end: T0 + 10_000,
  event_type: 'page_view',
  event_count: 4,
  amount_cents_sum: 0,
  distinct_sessions: 2,
  version: 1,
  is_final: false,
  emitted_at: T0,
};

/** The contract's decoder and the fast one must agree: same outcome, same values, same detail. */
function agree(bytes: Buffer | null): void {
  for (const [fast, strict] of [
    [SESSION_EMISSIONS.decode, decodeSessionAggregate],
    [WINDOW_EMISSIONS.decode, decodeWindowAggregate],
  ] as const) {
    const f = fast(bytes);
    const s = strict(bytes);
    expect(f.ok ? { ok: true, value: { ...f.value } } : f).toEqual(s);
  }
}

describe('the aggregate decoders without zod on the hot path', () => {
  it('agree with the contract on nothing, empty and short values', () => {
    agree(null);
    agree(Buffer.alloc(0));
    agree(Buffer.from([0xc3, 0x01, 0]));
  });

  it('agree with the contract on good records', () => {
    agree(encodeSessionAggregate(SESSION));
    agree(encodeWindowAggregate(WINDOW));
  });

  it('agree on records the Avro schema takes and the zod schema does not, with the same detail', () => {
    // Encoded with a valid record, then patched: the encoder refuses nothing Avro can carry.
    const bad: SessionAggregate[] = [
      { ...SESSION, run_id: '' },
      { ...SESSION, session_id: '' },
      { ...SESSION, event_count: -1 },
      { ...SESSION, version: 0 },
    ];
    for (const s of bad) {
      const bytes = encodeSessionAggregate({ ...SESSION, ...s });
      agree(bytes);
      expect(SESSION_EMISSIONS.decode(bytes).ok).toBe(false);
    }
    agree(encodeWindowAggregate({ ...WINDOW, distinct_sessions: -3 }));
    agree(encodeWindowAggregate({ ...WINDOW, event_type: '' }));
  });

  it('agree on every truncation and on single corrupted bytes', () => {
    for (const good of [encodeSessionAggregate(SESSION), encodeWindowAggregate(WINDOW)]) {
      for (let n = 0; n <= good.length; n++) agree(good.subarray(0, n));
      agree(Buffer.concat([good, Buffer.from([0])]));
      for (let i = 0; i < good.length; i++)
        for (const v of [0x00, 0x01, 0x02, 0x7f, 0x80, 0xff]) {
          const bytes = Buffer.from(good);
          bytes[i] = v;
          agree(bytes);
        }
    }
  });
});
