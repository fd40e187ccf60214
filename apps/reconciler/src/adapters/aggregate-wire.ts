/**
 * How the aggregate readers take a window or session apart: its decoder, key parts and values.
 *
 * agg.sessions holds millions of emissions, and the contract's decoder runs zod on each (a copy of
 * the record, then a parsed copy). Here a record is decoded with the contract's own Avro schema and
 * checked by hand against what that zod schema requires; anything the check does not pass (a bad
 * header, trailing bytes, an empty id, a negative count...) goes to the contract's decoder, which
 * decides and says why. So the fast path only ever accepts what the contract accepts, with the same
 * values, and a bad record is reported with the contract's own detail (aggregate-wire.spec.ts).
 */

import { Type } from 'avsc';
import {
  decodeSessionAggregate,
  decodeWindowAggregate,
  sessionAggregateFingerprint,
  sessionAggregateSchema,
  SINGLE_OBJECT_HEADER_BYTES,
  SINGLE_OBJECT_MAGIC,
  windowAggregateFingerprint,
  windowAggregateSchema,
  type AggregateDecodeResult,
  type SessionAggregate,
  type WindowAggregate,
} from '@clickstream/contracts';
import type { StoredSession, StoredWindow } from '@clickstream/warehouse';
import type { AggregateKind } from '../core/aggregate-keys';
import type { AggregateRows } from '../core/aggregate-rows';

type Decode<A> = (bytes: Buffer | null | undefined) => AggregateDecodeResult<A>;

function fastDecoder<A>(
  schema: object,
  fingerprint: Buffer,
  fits: (a: A) => boolean,
  strict: Decode<A>,
): Decode<A> {
  const type = Type.forSchema(structuredClone(schema) as Parameters<typeof Type.forSchema>[0]);
  const header = Buffer.concat([SINGLE_OBJECT_MAGIC, fingerprint]);
  return (bytes) => {
    if (
      bytes &&
      bytes.length >= SINGLE_OBJECT_HEADER_BYTES &&
      bytes.compare(header, 0, SINGLE_OBJECT_HEADER_BYTES, 0, SINGLE_OBJECT_HEADER_BYTES) === 0
    ) {
      try {
        const d = type.decode(bytes, SINGLE_OBJECT_HEADER_BYTES) as { value: A; offset: number };
        if (d.offset === bytes.length && fits(d.value)) return { ok: true, value: d.value };
      } catch {
        // The contract's decoder below says what is wrong.
      }
    }
    return strict(bytes);
  };
}

const id = (v: unknown): boolean => typeof v === 'string' && v.length > 0; // z.string().min(1)
const long = Number.isSafeInteger; // z.number().int() (zod 4: safe integers)
const flag = (v: unknown): boolean => typeof v === 'boolean';

/** What WindowAggregateSchema requires of a decoded record (contracts/src/aggregate/types.ts). */
function windowFits(w: WindowAggregate): boolean {
  return (
    id(w.run_id) &&
    id(w.event_type) &&
    long(w.window_start) &&
    long(w.window_end) &&
    long(w.event_count) &&
    w.event_count >= 0 &&
    long(w.amount_cents_sum) &&
    long(w.distinct_sessions) &&
    w.distinct_sessions >= 0 &&
    long(w.version) &&
    w.version > 0 &&
    flag(w.is_final) &&
    long(w.emitted_at)
  );
}

/** What SessionAggregateSchema requires of a decoded record. */
function sessionFits(s: SessionAggregate): boolean {
  return (
    id(s.run_id) &&
    id(s.session_id) &&
    long(s.session_start) &&
    long(s.session_end) &&
    long(s.event_count) &&
    s.event_count >= 0 &&
    long(s.revenue_cents) &&
    flag(s.converted) &&
    long(s.version) &&
    s.version > 0 &&
    flag(s.is_final) &&
    flag(s.retracted) &&
    long(s.emitted_at)
  );
}

/** A kind of aggregate record as the readers see it (a decoded emission or a ClickHouse row). */
export interface EmissionShape<A> {
  kind: AggregateKind;
  decode: Decode<A>;
  runId(a: A): string;
  /** event_type of a window, session_id of a session. */
  text(a: A): string;
  /** window_start of a window, session_start of a session. */
  time(a: A): number;
  version(a: A): number;
  /** Sets row i to a's version, flags and values. */
  write(rows: AggregateRows, i: number, a: A): void;
  /** Whether row i holds a's values and flags. */
  same(rows: AggregateRows, i: number, a: A): boolean;
}

export const WINDOW_EMISSIONS: EmissionShape<StoredWindow> = {
  kind: 'windows',
  decode: fastDecoder(windowAggregateSchema(), windowAggregateFingerprint(), windowFits, (b) =>
    decodeWindowAggregate(b),
  ),
  runId: (w) => w.run_id,
  text: (w) => w.event_type,
  time: (w) => w.window_start,
  version: (w) => w.version,
  write: (rows, i, w) =>
    rows.set(
      i,
      w.version,
      w.is_final,
      false,
      w.window_end,
      w.event_count,
      w.amount_cents_sum,
      w.distinct_sessions,
    ),
  same: (rows, i, w) =>
    rows.finals[i] === w.is_final &&
    rows.retracted[i] === false &&
    rows.values[0][i] === w.window_end &&
    rows.values[1][i] === w.event_count &&
    rows.values[2][i] === w.amount_cents_sum &&
    rows.values[3][i] === w.distinct_sessions,
};

export const SESSION_EMISSIONS: EmissionShape<StoredSession> = {
  kind: 'sessions',
  decode: fastDecoder(sessionAggregateSchema(), sessionAggregateFingerprint(), sessionFits, (b) =>
    decodeSessionAggregate(b),
  ),
  runId: (s) => s.run_id,
  text: (s) => s.session_id,
  time: (s) => s.session_start,
  version: (s) => s.version,
  write: (rows, i, s) =>
    rows.set(
      i,
      s.version,
      s.is_final,
      s.retracted,
      s.session_end,
      s.event_count,
      s.revenue_cents,
      s.converted ? 1 : 0,
    ),
  same: (rows, i, s) =>
    rows.finals[i] === s.is_final &&
    rows.retracted[i] === s.retracted &&
    rows.values[0][i] === s.session_end &&
    rows.values[1][i] === s.event_count &&
    rows.values[2][i] === s.revenue_cents &&
    rows.values[3][i] === (s.converted ? 1 : 0),
};
