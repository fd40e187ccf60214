/** Pure mappers from a decoded event or a dead-letter record to the row of its table. */
import { HEADERS, parseSeqHeader, type ClickEvent } from '@clickstream/contracts';
import type { DlqRow, EventRow, RecordMeta, RejectRow } from './types';

/** Header values as kafka-tx delivers them (Buffer) or as a test writes them (string). */
export type HeaderMap = Readonly<Record<string, Buffer | string | undefined>>;

function headerText(headers: HeaderMap, name: string): string | null {
  const v = headers[name];
  if (v === undefined) return null;
  return typeof v === 'string' ? v : v.toString('utf8');
}

/** An integer header, or -1 when absent or not a decimal integer. */
function headerInt(headers: HeaderMap, name: string): number {
  const text = headerText(headers, name);
  if (text === null || !/^-?[0-9]{1,16}$/.test(text)) return -1;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : -1;
}

function metaColumns(
  meta: RecordMeta,
): Pick<EventRow, 'kafka_topic' | 'kafka_partition' | 'kafka_offset' | 'kafka_timestamp'> {
  return {
    kafka_topic: meta.topic,
    kafka_partition: meta.partition,
    kafka_offset: meta.offset,
    kafka_timestamp: meta.timestamp,
  };
}

/** The events_valid / events_clean row of a decoded event (both tables share the columns). */
export function toEventRow(event: ClickEvent, meta: RecordMeta, insertedAt: number): EventRow {
  return {
    run_id: event.run_id,
    seq: meta.headerSeq ?? event.seq,
    event_id: event.event_id,
    event_type: event.event_type,
    event_time: event.event_time,
    ingest_time: event.ingest_time,
    session_id: event.session_id,
    user_id: event.user_id,
    page: event.page,
    product_id: event.product_id,
    quantity: event.quantity,
    amount_cents: event.amount_cents,
    currency: event.currency,
    device: event.device,
    ...metaColumns(meta),
    inserted_at: insertedAt,
  };
}

export const toValidRow = toEventRow;
export const toCleanRow = toEventRow;

/** The events_dlq row of a dead letter: reason, detail and source from its headers, original bytes as base64. */
export function toDlqRow(
  record: { headers: HeaderMap; value: Buffer | null },
  meta: RecordMeta,
  insertedAt: number,
): DlqRow {
  const h = record.headers;
  return {
    run_id: headerText(h, HEADERS.runId) ?? '',
    seq: parseSeqHeader(h[HEADERS.seq]) ?? -1,
    reason: headerText(h, HEADERS.reason) ?? '',
    detail: headerText(h, HEADERS.detail) ?? '',
    source_topic: headerText(h, HEADERS.sourceTopic) ?? '',
    source_partition: headerInt(h, HEADERS.sourcePartition),
    source_offset: headerInt(h, HEADERS.sourceOffset),
    value_base64: record.value === null ? '' : record.value.toString('base64'),
    value_bytes: record.value === null ? 0 : record.value.length,
    value_is_null: record.value === null ? 1 : 0,
    ...metaColumns(meta),
    inserted_at: insertedAt,
  };
}

/** The load_rejects row of a valid/clean record that did not decode; run_id and seq from its headers when present. */
export function toRejectRow(
  record: { headers: HeaderMap; value: Buffer | null },
  meta: RecordMeta,
  rejection: { reason: string; detail: string },
  insertedAt: number,
): RejectRow {
  return {
    ...metaColumns(meta),
    run_id: headerText(record.headers, HEADERS.runId) ?? '',
    seq: parseSeqHeader(record.headers[HEADERS.seq]) ?? -1,
    reason: rejection.reason,
    detail: rejection.detail,
    value_base64: record.value === null ? '' : record.value.toString('base64'),
    inserted_at: insertedAt,
  };
}
