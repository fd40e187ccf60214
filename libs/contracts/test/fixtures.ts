/** Sample events for the specs and the benchmark (not exported from the package). */

import { randomUUID } from 'crypto';
import type { ClickEvent } from '../src/event/types';

export const NOW = 1_790_000_000_000;

export function sampleEvent(overrides: Partial<ClickEvent> = {}): ClickEvent {
  return {
    event_id: randomUUID(),
    seq: 42,
    run_id: 'run-1',
    event_type: 'payment_succeeded',
    event_time: NOW - 1000,
    session_id: 'sess-1',
    user_id: 'user-7',
    page: '/checkout',
    product_id: null,
    quantity: null,
    amount_cents: 12_999,
    currency: 'EUR',
    device: 'mobile',
    ingest_time: null,
    ...overrides,
  };
}
