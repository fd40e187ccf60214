/** Kafka header names used on every topic, so that even undecodable poison can be matched to the ledger. */

export const HEADERS = {
  /** Generator sequence number, decimal ASCII. On every record of every topic that carries an event. */
  seq: 'cs-seq',
  /** Run id of the generator run that sent the record. */
  runId: 'cs-run-id',
  /** DLQ only: the RejectReason. */
  reason: 'cs-reason',
  /** DLQ only: a human-readable detail. */
  detail: 'cs-detail',
  /** DLQ only: where the record came from. */
  sourceTopic: 'cs-source-topic',
  sourcePartition: 'cs-source-partition',
  sourceOffset: 'cs-source-offset',
} as const;

export type HeaderName = (typeof HEADERS)[keyof typeof HEADERS];

/** Largest seq the header can carry without losing precision in a JS number. */
const SEQ_PATTERN = /^(0|[1-9][0-9]{0,15})$/;

/** The cs-seq header value of a sequence number (decimal ASCII). */
export function formatSeqHeader(seq: number): string {
  if (!Number.isSafeInteger(seq) || seq < 0)
    throw new RangeError(`seq ${seq} is not a non-negative safe integer`);
  return String(seq);
}

/** Reads a cs-seq header; null when absent or not canonical decimal ASCII of a non-negative safe integer. Never throws. */
export function parseSeqHeader(value: Buffer | string | undefined): number | null {
  if (value === undefined || value === null) return null;
  const text =
    typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('latin1') : null;
  if (text === null || !SEQ_PATTERN.test(text)) return null;
  const seq = Number(text);
  return Number.isSafeInteger(seq) ? seq : null;
}
