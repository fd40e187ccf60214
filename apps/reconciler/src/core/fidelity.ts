/**
 * What the gatekeeper promises about each output record, checked against the raw record it came
 * from (DESIGN.md, "Flow"): a valid record stays in its raw record's partition and carries the raw
 * record's broker timestamp as ingest_time; a dead letter carries the raw bytes unchanged (null
 * kept apart from empty) and names the raw record as its source. A pure function over typed arrays.
 */
import type { DlqRecords, RawRecords, ValidRecords } from './contents';
import type { EvidenceCollector } from './evidence';

/** The raw layer by seq: one slot per ledger seq. */
export interface RawIndex {
  topic: string;
  /** How many raw records carry the seq (saturates at 255). */
  copies: Uint8Array;
  partition: Int32Array;
  offset: Float64Array;
  timestamp: Float64Array;
  /** Values kept by the raw reader, by seq. */
  value: Map<number, Buffer | null>;
}

/** Indexes the raw layer's records by seq (the first record of a seq; a seq held twice is not checked: raw reports it). */
export function indexRaw(size: number, seqs: ArrayLike<number>, records: RawRecords): RawIndex {
  const copies = new Uint8Array(size);
  const partition = new Int32Array(size).fill(-1);
  const offset = new Float64Array(size).fill(NaN);
  const timestamp = new Float64Array(size).fill(NaN);
  const value = new Map<number, Buffer | null>();
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i] as number;
    if (seq < 0 || seq >= size) continue;
    if (copies[seq] !== 255) copies[seq] = (copies[seq] as number) + 1;
    if (copies[seq] !== 1) continue;
    partition[seq] = records.partitions[i] as number;
    offset[seq] = records.offsets[i] as number;
    timestamp[seq] = records.timestamps[i] as number;
    if (records.values.has(i)) value.set(seq, records.values.get(i) as Buffer | null);
  }
  return { topic: records.topic, copies, partition, offset, timestamp, value };
}

/** Records that could not be checked: their seq is in no raw record, or in more than one. */
export interface FidelityTally {
  checked: number;
  unmatched: number;
}

/** Adds one differing example per broken promise (record and field) to `differing`. */
export function checkFidelity(
  raw: RawIndex,
  seqs: ArrayLike<number>,
  records: ValidRecords | DlqRecords,
  differing: EvidenceCollector,
): FidelityTally {
  const tally = { checked: 0, unmatched: 0 };
  const size = raw.copies.length;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i] as number;
    if (seq < 0 || seq >= size || raw.copies[seq] !== 1) {
      tally.unmatched++;
      continue;
    }
    tally.checked++;
    if (records.kind === 'valid') checkValid(raw, seq, i, records, differing);
    else checkDeadLetter(raw, seq, i, records, differing);
  }
  return tally;
}

function checkValid(
  raw: RawIndex,
  seq: number,
  i: number,
  r: ValidRecords,
  differing: EvidenceCollector,
): void {
  const partition = r.partitions[i] as number;
  if (partition !== raw.partition[seq])
    differing.add({ seq, field: 'partition', expected: raw.partition[seq], observed: partition });
  const ingest = r.ingestTimes[i] as number;
  if (ingest !== raw.timestamp[seq])
    differing.add({
      seq,
      field: 'ingest_time',
      expected: raw.timestamp[seq],
      observed: Number.isNaN(ingest) ? null : ingest,
    });
}

function checkDeadLetter(
  raw: RawIndex,
  seq: number,
  i: number,
  r: DlqRecords,
  differing: EvidenceCollector,
): void {
  if (raw.value.has(seq)) {
    const want = raw.value.get(seq) as Buffer | null;
    const got = r.values[i] ?? null;
    if (!sameBytes(want, got))
      differing.add({
        seq,
        field: 'value',
        expected: describe(want),
        observed: describe(got),
        first_difference: firstDifference(want, got),
      });
  }
  const topic = r.sourceTopics[i] ?? null;
  const partition = r.sourcePartitions[i] as number;
  const offset = r.sourceOffsets[i] as number;
  if (topic !== raw.topic || partition !== raw.partition[seq] || offset !== raw.offset[seq])
    differing.add({
      seq,
      field: 'source',
      expected: { topic: raw.topic, partition: raw.partition[seq], offset: raw.offset[seq] },
      observed: {
        topic,
        partition: Number.isNaN(partition) ? null : partition,
        offset: Number.isNaN(offset) ? null : offset,
      },
    });
}

/** Null and empty are different records. */
function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.equals(b);
}

/** Index of the first byte that differs (or the shorter length); null when one side is null. */
function firstDifference(a: Buffer | null, b: Buffer | null): number | null {
  if (a === null || b === null) return null;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

function describe(v: Buffer | null): unknown {
  if (v === null) return null;
  return { bytes: v.length, head: v.subarray(0, 16).toString('hex') };
}
