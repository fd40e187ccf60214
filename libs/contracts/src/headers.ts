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
