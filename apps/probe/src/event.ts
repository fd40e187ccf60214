/** The probe's synthetic event and its Kafka record: the generator's encoding and headers, the probe's run id. */

import { randomUUID } from 'node:crypto';
import {
  HEADERS,
  PROBE_RUN_PREFIX,
  encodeEvent,
  formatSeqHeader,
  type ClickEvent,
} from '@clickstream/contracts';
import type { OutRecord } from '@clickstream/kafka-tx';

/** The run id of one probe process: always "probe-..." so that every layer can tell probe events apart. */
export function probeRunId(suffix: string, startedAt: number): string {
  return `${PROBE_RUN_PREFIX}${suffix === '' ? String(startedAt) : suffix}`;
}

/** A page view of the probe's own page; one session per probe run, so it never mixes with shoppers. */
export function probeEvent(
  runId: string,
  seq: number,
  sentAt: number,
  eventId: string = randomUUID(),
): ClickEvent {
  return {
    event_id: eventId,
    seq,
    run_id: runId,
    event_type: 'page_view',
    event_time: sentAt,
    session_id: runId,
    user_id: null,
    page: '/__probe',
    product_id: null,
    quantity: null,
    amount_cents: null,
    currency: null,
    device: 'unknown',
    ingest_time: null,
  };
}

/**
 * The record as the generator sends it: single-object encoded, seq and run id in headers. The key
 * is the event id, so that successive probe events spread over the partitions (and over the
 * brokers that lead them): a stall of any one partition shows up within a few probes.
 */
export function probeRecord(topic: string, event: ClickEvent): OutRecord {
  return {
    topic,
    key: event.event_id,
    value: encodeEvent(event),
    headers: { [HEADERS.seq]: formatSeqHeader(event.seq), [HEADERS.runId]: event.run_id },
    timestamp: event.event_time,
  };
}
