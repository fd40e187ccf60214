/** What an adapter read from one layer: this run's records reduced to seqs (plus reason / event_id where the layer has them). */

import type { Evidence } from '@clickstream/contracts';

/** A seq that could not be read from a record (no header, not a number). */
export const NO_SEQ = -1;

export interface LayerContents {
  /** One entry per record of this run, in read order; NO_SEQ when the record had no usable seq. */
  seqs: ArrayLike<number>;
  /** Dead-letter layers: the reason of each record (same order as seqs). */
  reasons?: ArrayLike<string | null>;
  /** Layers that carry the event: its event_id (same order as seqs), cross-checked against the ledger. */
  eventIds?: ArrayLike<string | null>;
  /**
   * The same cross-check already made against the ledger's event ids, for contents read on another
   * thread (adapters/stored-layers.ts): a string per record would have to be copied across.
   */
  eventIdCheck?: EventIdCheck;
  /**
   * What the gatekeeper's input and outputs promise about each record (core/fidelity.ts), same
   * order as seqs; only the Kafka layers clickstream.raw, events.valid and events.dlq carry it.
   */
  records?: RawRecords | ValidRecords | DlqRecords;
  /** Records the reader set apart as unexpected (e.g. ClickHouse rows loaded from another topic than the table's): not in seqs. */
  unexpected?: Evidence;
  /** Records of other runs (the probe, earlier runs in the same topic): ignored, reported as information. */
  foreign: number;
  /** Things worth reading that are not failures (e.g. unmerged duplicate rows, snapshot id). */
  notes: string[];
  readMs: number;
}

/** Per record (same order as seqs): whether its event_id differs from the ledger's for its seq. */
export interface EventIdCheck {
  /** 1 where the record's event_id is not the ledger's event_id of its seq (null for none). */
  differs: Uint8Array;
  /** By record index, for the records that differ: the event_id the record holds. */
  observed: ReadonlyMap<number, string | null>;
}

/**
 * Replaces `eventIds` with their check against the ledger's event ids by seq (as core/check-layer.ts
 * makes it): a record whose seq the ledger does not hold differs unless its event_id is null too,
 * and check-layer never asks about those. Pure, so it is unit-tested.
 */
export function checkEventIds(
  contents: LayerContents,
  ledgerEventIds: ArrayLike<string | null | undefined>,
): LayerContents {
  const { eventIds, seqs } = contents;
  if (eventIds === undefined) return contents;
  const differs = new Uint8Array(seqs.length);
  const observed = new Map<number, string | null>();
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i] as number;
    const id = eventIds[i] ?? null;
    const want = seq >= 0 ? (ledgerEventIds[seq] ?? null) : null;
    if (id !== want) {
      differs[i] = 1;
      observed.set(i, id);
    }
  }
  const { eventIds: _dropped, ...rest } = contents;
  return { ...rest, eventIdCheck: { differs, observed } };
}

/** clickstream.raw: where the broker put each record, when (LogAppendTime), and its bytes where asked for. */
export interface RawRecords {
  kind: 'raw';
  partitions: ArrayLike<number>;
  offsets: ArrayLike<number>;
  timestamps: ArrayLike<number>;
  /** The topic read (what a dead letter's source topic must name). */
  topic: string;
  /** By record index (same order as seqs): the value of the records the reader was asked to keep (poison by the ledger). */
  values: ReadonlyMap<number, Buffer | null>;
}

/** events.valid: each record's partition and its decoded ingest_time (NaN when absent or undecodable). */
export interface ValidRecords {
  kind: 'valid';
  partitions: ArrayLike<number>;
  ingestTimes: ArrayLike<number>;
}

/** events.dlq: each dead letter's value (null kept apart from empty) and the source it names (NaN / null when absent or garbled). */
export interface DlqRecords {
  kind: 'dlq';
  values: readonly (Buffer | null)[];
  sourceTopics: readonly (string | null)[];
  sourcePartitions: ArrayLike<number>;
  sourceOffsets: ArrayLike<number>;
}

/** A reader's outcome: contents, or why the layer could not be read (which makes its verdict unknown). */
export type LayerRead =
  { ok: true; contents: LayerContents } | { ok: false; error: string; readMs: number };

/** Growable seq list for adapters: appending to a typed array avoids a boxed number per record. */
export class SeqList {
  private data = new Int32Array(1024);
  length = 0;

  push(seq: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = seq;
  }

  toArray(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/** Growable float list (offsets, timestamps): exact for any integer up to 2^53. */
export class NumberList {
  private data = new Float64Array(1024);
  length = 0;

  push(n: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = n;
  }

  toArray(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/** Larger seqs cannot be indexed; they are kept as this value, which no ledger holds, so they count as unknown. */
export const SEQ_OUT_OF_RANGE = 0x7fffffff;

/** A seq as stored in a SeqList: NO_SEQ when absent or not a non-negative integer, clamped to SEQ_OUT_OF_RANGE. */
export function toIndexSeq(value: number | bigint | null | undefined): number {
  if (value === null || value === undefined) return NO_SEQ;
  if (typeof value === 'bigint')
    return value < 0n
      ? NO_SEQ
      : value >= BigInt(SEQ_OUT_OF_RANGE)
        ? SEQ_OUT_OF_RANGE
        : Number(value);
  if (!Number.isInteger(value) || value < 0) return NO_SEQ;
  return value >= SEQ_OUT_OF_RANGE ? SEQ_OUT_OF_RANGE : value;
}

/**
 * The cs-seq header as an index seq, byte by byte: the same acceptance as parseSeqHeader of
 * @clickstream/contracts (canonical decimal, "0" or no leading zero, at most 16 digits, safe
 * integer) without a string per record; the spec checks the two agree.
 */
export function seqFromHeader(value: Buffer | undefined): number {
  if (value === undefined) return NO_SEQ;
  const len = value.length;
  if (len === 0 || len > 16) return NO_SEQ;
  const first = value[0] as number;
  if (first === 48) return len === 1 ? 0 : NO_SEQ;
  let n = 0;
  for (let i = 0; i < len; i++) {
    const c = value[i] as number;
    if (c < 48 || c > 57) return NO_SEQ;
    n = n * 10 + (c - 48);
  }
  if (!Number.isSafeInteger(n)) return NO_SEQ;
  return n >= SEQ_OUT_OF_RANGE ? SEQ_OUT_OF_RANGE : n;
}
