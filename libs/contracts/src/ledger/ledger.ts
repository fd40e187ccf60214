/** Ledger rows: one per send of a run, the ground truth every layer is counted against. */

import { z } from 'zod';
import { EVENT_TYPES } from '../event/types';
import { REJECT_REASONS } from '../reasons';

export const FAULT_KINDS = [
  'none',
  'duplicate', // the same event (same event_id, same key) sent again later
  'out_of_order', // event_time jittered backwards within the lateness bound (still on time); also the bridge of a session merge
  'late', // event_time minutes behind the send time (late by the DESIGN.md rule)
  'poison_random_bytes',
  'poison_truncated',
  'poison_unknown_fingerprint',
  'poison_bad_magic',
  'poison_contract', // decodes, but breaks the contract (see expected_reason)
  'lateness_edge', // event_time within 50 ms of the lateness bound L behind the send, either side
  'poison_malformed', // bytes no reader can take as one record: empty, oversized, trailing bytes or a malformed body (see expected_reason)
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const DELIVERY_STATUSES = ['acked', 'failed', 'not_sent'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const ms = z.number().int().nonnegative();

export const LedgerRowSchema = z.object({
  run_id: z.string().min(1),
  seq: z.number().int().nonnegative(),
  /** Null only for poison that carries no event at all (random bytes). */
  event_id: z.string().nullable(),
  event_type: z.enum(EVENT_TYPES).nullable(),
  session_id: z.string().nullable(),
  /** Partition key of the record (session_id for events; poison may have none). */
  key: z.string().nullable(),
  event_time: ms.nullable(),
  amount_cents: z.number().int().nullable(),
  schema_version: z.number().int().positive().nullable(),
  /** Send time = the Kafka timestamp the producer set on the raw record = the ingest time. */
  send_time: ms,
  fault: z.enum(FAULT_KINDS),
  /** For fault 'duplicate': the seq of the first send of the same event. */
  duplicate_of: z.number().int().nonnegative().nullable(),
  expected_fate: z.enum(['valid', 'poison']),
  expected_reason: z.enum(REJECT_REASONS).nullable(),
  /** For valid sends: on time or late by the rule, from event_time and send_time. */
  expected_timeliness: z.enum(['on_time', 'late']).nullable(),
  delivery: z.enum(DELIVERY_STATUSES),
  partition: z.number().int().nonnegative().nullable(),
  offset: z.number().int().nonnegative().nullable(),
  delivery_error: z.string().nullable(),
});
export type LedgerRow = z.infer<typeof LedgerRowSchema>;
