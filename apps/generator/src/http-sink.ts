/**
 * The generator's sink through the HTTP collector (--via http): each batch is POSTed as framed
 * records (key, cs-seq, cs-run-id, bytes unchanged, poison included), at most `maxPerRequest` per
 * request. A 2xx means Kafka acknowledged every record of the request: acked, with the placements
 * the collector returns. Anything else (a 5xx, a 4xx, a timeout, a broken connection) is booked
 * failed, never retried: the outcome is unknown, so the reconciler expects the record at most once
 * in raw, and exactly once downstream if it is there.
 */

import { FRAMES_CONTENT_TYPE, encodeFrames } from '@clickstream/contracts';
import type { Sink, SinkOutcome, SinkRecord } from './sink';

export interface HttpSinkOptions {
  /** The collector's events endpoint, e.g. http://127.0.0.1:9404/v1/events. */
  url: string;
  maxPerRequest: number;
  timeoutMs: number;
  /** Injected so tests need no server. */
  fetch?: typeof fetch;
}

function failed(error: string): SinkOutcome {
  return { delivery: 'failed', partition: null, offset: null, error };
}

async function post(o: HttpSinkOptions, records: readonly SinkRecord[]): Promise<SinkOutcome[]> {
  const body = encodeFrames(
    records.map((r) => ({ key: r.key, headers: r.headers, value: r.value })),
  );
  const doFetch = o.fetch ?? fetch;
  try {
    const res = await doFetch(o.url, {
      method: 'POST',
      headers: { 'content-type': FRAMES_CONTENT_TYPE },
      body,
      signal: AbortSignal.timeout(o.timeoutMs),
    });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) {
      const why = `HTTP ${res.status} from the collector (outcome indefinite): ${text.slice(0, 200)}`;
      return records.map(() => failed(why));
    }
    const placements =
      (JSON.parse(text) as { placements?: [number | null, number | null][] }).placements ?? [];
    return records.map((_, i) => ({
      delivery: 'acked' as const,
      partition: placements[i]?.[0] ?? null,
      offset: placements[i]?.[1] ?? null,
      error: null,
    }));
  } catch (err) {
    // fetch hides the transport error in `cause` (ECONNRESET, a closed socket, a timeout).
    const cause =
      err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    const why = `no answer from the collector (outcome indefinite): ${err instanceof Error ? err.message : String(err)}${cause}`;
    return records.map(() => failed(why));
  }
}

export function httpSink(o: HttpSinkOptions): Sink {
  return {
    live: true,
    async send(records) {
      const chunks: Promise<SinkOutcome[]>[] = [];
      for (let i = 0; i < records.length; i += o.maxPerRequest)
        chunks.push(post(o, records.slice(i, i + o.maxPerRequest)));
      return (await Promise.all(chunks)).flat();
    },
    close: () => Promise.resolve(),
  };
}
