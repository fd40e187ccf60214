/** Window and session aggregates for unit tests: one emission of run r1 at T0, with the fields a test cares about overridden. */

import type { SessionAggregate, WindowAggregate } from '@clickstream/contracts';

export const AGG_T0 = 1_700_000_000_000;

export function windowAggregate(over: Partial<WindowAggregate> = {}): WindowAggregate {
  return {
    run_id: 'r1',
    window_start: AGG_T0,
    window_end: AGG_T0 + 10_000,
    event_type: 'page_view',
    event_count: 1,
    amount_cents_sum: 0,
    distinct_sessions: 1,
    version: 1,
    is_final: false,
    emitted_at: AGG_T0,
    ...over,
  };
}

export function sessionAggregate(over: Partial<SessionAggregate> = {}): SessionAggregate {
  return {
    run_id: 'r1',
    session_id: 's-1',
    session_start: AGG_T0,
    session_end: AGG_T0 + 5000,
    event_count: 3,
    revenue_cents: 0,
    converted: false,
    version: 1,
    is_final: false,
    retracted: false,
    emitted_at: AGG_T0,
    ...over,
  };
}
