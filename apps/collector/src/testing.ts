/** Test helpers shared by the unit specs (not exported by the app). */

import type { ClickEvent } from '@clickstream/contracts';

export function sampleEvent(seq: number, over: Partial<ClickEvent> = {}): ClickEvent {
  return {
    event_id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    seq,
    run_id: 'run-1',
    event_type: 'page_view',
    event_time: 1_764_000_000_000 + seq,
    session_id: 'session-1',
    user_id: null,
    page: '/home',
    product_id: null,
    quantity: null,
    amount_cents: null,
    currency: null,
    device: 'mobile',
    ingest_time: null,
    ...over,
  };
}
