import { Type } from 'avsc';
import {
  decodeSessionAggregate,
  decodeWindowAggregate,
  encodeSessionAggregate,
  encodeWindowAggregate,
  sessionAggregateFingerprint,
  sessionAggregateSchema,
  windowAggregateFingerprint,
  windowAggregateSchema,
} from './wire';
import {
  isProbeRun,
  PROBE_RUN_PREFIX,
  sessionKey,
  windowKey,
  windowStartOf,
  type SessionAggregate,
  type WindowAggregate,
} from './types';
import { SINGLE_OBJECT_MAGIC } from '../event/wire';

const windowRow = (): WindowAggregate => ({
  run_id: 'run-1',
  window_start: 1_700_000_000_000,
  window_end: 1_700_000_010_000,
  event_type: 'page_view',
  event_count: 3,
  amount_cents_sum: 0,
  distinct_sessions: 2,
  version: 1,
  is_final: false,
  emitted_at: 1_700_000_016_000,
});
const sessionRow = (): SessionAggregate => ({
  run_id: 'run-1',
  session_id: 's-1',
  session_start: 1_700_000_000_123,
  session_end: 1_700_000_020_456,
  event_count: 4,
  revenue_cents: 2599,
  converted: true,
  version: 2,
  is_final: true,
  retracted: false,
  emitted_at: 1_700_000_060_000,
});

describe('aggregate schemas', () => {
  it('keep the field order of the wire contract', () => {
    const names = (s: object): string[] =>
      (s as { fields: { name: string }[] }).fields.map((f) => f.name);
    expect(names(windowAggregateSchema())).toEqual([
      'run_id',
      'window_start',
      'window_end',
      'event_type',
      'event_count',
      'amount_cents_sum',
      'distinct_sessions',
      'version',
      'is_final',
      'emitted_at',
    ]);
    expect(names(sessionAggregateSchema())).toEqual([
      'run_id',
      'session_id',
      'session_start',
      'session_end',
      'event_count',
      'revenue_cents',
      'converted',
      'version',
      'is_final',
      'retracted',
      'emitted_at',
    ]);
  });

  it('keep their released fingerprints (the Flink job writes these bytes: never edit a released .avsc)', () => {
    expect(windowAggregateFingerprint().toString('hex')).toBe('f5c4179062d1f726');
    expect(sessionAggregateFingerprint().toString('hex')).toBe('0c048208d186cbd3');
  });
});

describe('aggregate wire', () => {
  it('round-trips a window row behind C3 01 + fingerprint', () => {
    const bytes = encodeWindowAggregate(windowRow());
    expect(bytes.subarray(0, 2).equals(SINGLE_OBJECT_MAGIC)).toBe(true);
    expect(bytes.subarray(2, 10).equals(windowAggregateFingerprint())).toBe(true);
    expect(decodeWindowAggregate(bytes)).toEqual({ ok: true, value: windowRow() });
  });

  it('round-trips a session row', () => {
    expect(decodeSessionAggregate(encodeSessionAggregate(sessionRow()))).toEqual({
      ok: true,
      value: sessionRow(),
    });
  });

  it('reads a body written by an independent writer of the same schema (as Java would)', () => {
    const other = Type.forSchema(structuredClone(windowAggregateSchema()) as never);
    const bytes = Buffer.concat([
      SINGLE_OBJECT_MAGIC,
      windowAggregateFingerprint(),
      other.toBuffer(windowRow()),
    ]);
    expect(decodeWindowAggregate(bytes)).toEqual({ ok: true, value: windowRow() });
  });

  it('rejects, never throws: empty, short, the other aggregate, trailing bytes, truncation', () => {
    const w = encodeWindowAggregate(windowRow());
    expect(decodeWindowAggregate(null).ok).toBe(false);
    expect(decodeWindowAggregate(Buffer.alloc(0)).ok).toBe(false);
    expect(decodeWindowAggregate(w.subarray(0, 5)).ok).toBe(false);
    expect(decodeWindowAggregate(encodeSessionAggregate(sessionRow())).ok).toBe(false);
    expect(decodeSessionAggregate(w).ok).toBe(false);
    expect(decodeWindowAggregate(Buffer.concat([w, Buffer.from([0])])).ok).toBe(false);
    expect(decodeWindowAggregate(w.subarray(0, w.length - 2)).ok).toBe(false);
  });

  it('rejects a row that breaks the zod rules (version 0)', () => {
    const bytes = encodeWindowAggregate({ ...windowRow(), version: 0 });
    expect(decodeWindowAggregate(bytes)).toMatchObject({ ok: false });
  });

  it('refuses to encode a value that does not fit, naming the field', () => {
    expect(() => encodeWindowAggregate({ ...windowRow(), event_count: 1.5 })).toThrow(
      /event_count/,
    );
  });
});

describe('aggregate keys and probes', () => {
  it('formats the Kafka keys of the contract', () => {
    expect(windowKey(windowRow())).toBe('run-1|1700000000000|page_view');
    expect(sessionKey(sessionRow())).toBe('run-1|s-1|1700000000123');
  });

  it('finds window starts, also on boundaries and before the epoch', () => {
    expect(windowStartOf(1_700_000_009_999)).toBe(1_700_000_000_000);
    expect(windowStartOf(1_700_000_010_000)).toBe(1_700_000_010_000);
    expect(windowStartOf(-1)).toBe(-10_000);
  });

  it('tells probe runs by their prefix', () => {
    expect(PROBE_RUN_PREFIX).toBe('probe-');
    expect(isProbeRun('probe-123')).toBe(true);
    expect(isProbeRun('run-probe-1')).toBe(false);
    expect(isProbeRun('')).toBe(false);
  });
});
