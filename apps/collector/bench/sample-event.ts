/** The page view both collector benchmarks send (http-load.ts over HTTP, pure-path.ts in process). */

import type { ClickEvent } from '@clickstream/contracts';
import { samplePageView } from '@clickstream/test-support';

/**
 * A source of page views of one bench run, in the contract's shape: a fresh event id each (so no
 * retry or repeat collapses them), consecutive seq from 0, a thousand sessions in turn.
 */
export function pageViews(runId: string): () => ClickEvent {
  let seq = 0;
  return () => {
    const s = seq++;
    return samplePageView(s, runId, { session_id: `${runId}-${s % 1000}`, page: '/bench' });
  };
}

/** The event as a JSON body carries it: the nullable fields a page view does not use left out. */
export function asJson(e: ClickEvent): Record<string, unknown> {
  const {
    product_id: _p,
    quantity: _q,
    amount_cents: _a,
    currency: _c,
    ingest_time: _i,
    ...json
  } = e;
  return json;
}
