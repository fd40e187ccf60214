/** The window and session aggregates of issue #12 as TypeScript sees them: shapes, zod schemas, keys and constants. */

import { z } from 'zod';

/** Tumbling event-time windows of 10 s: [window_start, window_start + WINDOW_SIZE_MS). */
export const WINDOW_SIZE_MS = 10_000;
/** A new session starts when the event-time gap to the previous event is >= SESSION_GAP_MS. */
export const SESSION_GAP_MS = 30_000;
/** Run ids of the freshness probe start with this; probe events never count in aggregates. */
export const PROBE_RUN_PREFIX = 'probe-';

export function isProbeRun(runId: string): boolean {
  return runId.startsWith(PROBE_RUN_PREFIX);
}

/** Start of the tumbling window holding an event time (epoch ms, also for negative times). */
export function windowStartOf(eventTime: number): number {
  return eventTime - (((eventTime % WINDOW_SIZE_MS) + WINDOW_SIZE_MS) % WINDOW_SIZE_MS);
}

const long = z.number().int();

export const WindowAggregateSchema = z.object({
  run_id: z.string().min(1),
  window_start: long,
  window_end: long,
  event_type: z.string().min(1),
  event_count: long.nonnegative(),
  amount_cents_sum: long,
  distinct_sessions: long.nonnegative(),
  version: long.positive(),
  is_final: z.boolean(),
  emitted_at: long,
});
export type WindowAggregate = z.infer<typeof WindowAggregateSchema>;

export const SessionAggregateSchema = z.object({
  run_id: z.string().min(1),
  session_id: z.string().min(1),
  session_start: long,
  session_end: long,
  event_count: long.nonnegative(),
  revenue_cents: long,
  converted: z.boolean(),
  version: long.positive(),
  is_final: z.boolean(),
  retracted: z.boolean(),
  emitted_at: long,
});
export type SessionAggregate = z.infer<typeof SessionAggregateSchema>;

/** Kafka key of agg.windows: UTF-8 "<run_id>|<window_start>|<event_type>". */
export function windowKey(
  row: Pick<WindowAggregate, 'run_id' | 'window_start' | 'event_type'>,
): string {
  return `${row.run_id}|${row.window_start}|${row.event_type}`;
}

/** Kafka key of agg.sessions: UTF-8 "<run_id>|<session_id>|<session_start>". */
export function sessionKey(
  row: Pick<SessionAggregate, 'run_id' | 'session_id' | 'session_start'>,
): string {
  return `${row.run_id}|${row.session_id}|${row.session_start}`;
}
