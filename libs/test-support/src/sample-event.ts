/**
 * A sample page view for tests and benches, so that no suite builds its own. Its type is written out
 * here in the shape of contracts' ClickEvent (it is assignable to it) because this library depends
 * on no other (as kafka.ts does for the client options).
 */

import { randomUUID } from 'node:crypto';

/** A page view in the shape of `ClickEvent` from @clickstream/contracts: no product, cart or payment fields. */
export interface SamplePageView {
  event_id: string;
  seq: number;
  run_id: string;
  event_type: 'page_view';
  event_time: number;
  session_id: string;
  user_id: string | null;
  page: string;
  product_id: null;
  quantity: null;
  amount_cents: null;
  currency: null;
  device: 'desktop';
  ingest_time: number | null;
}

/**
 * A contract-valid page view of run `runId`: a fresh event id (so no retry or repeat collapses two),
 * event time now, session `sess-<seq>`, no user, page "/home" from a desktop, no ingest time (the
 * gatekeeper stamps it). `overrides` replace any of these.
 */
export function samplePageView(
  seq: number,
  runId: string,
  overrides: Partial<SamplePageView> = {},
): SamplePageView {
  return {
    event_id: randomUUID(),
    seq,
    run_id: runId,
    event_type: 'page_view',
    event_time: Date.now(),
    session_id: `sess-${seq}`,
    user_id: null,
    page: '/home',
    product_id: null,
    quantity: null,
    amount_cents: null,
    currency: null,
    device: 'desktop',
    ingest_time: null,
    ...overrides,
  };
}
