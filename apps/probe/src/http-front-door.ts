/** The HTTP front door (apps/collector) as a probe sender: one Avro single-object record per POST, labelled with the generator's headers. */

import type { DeliveryReport, OutRecord } from '@clickstream/kafka-tx';

export interface FrontDoor {
  send(records: OutRecord[]): Promise<DeliveryReport[]>;
}

type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** 2xx from the collector means Kafka holds the event (it answers only after the delivery report). */
export function httpFrontDoor(
  baseUrl: string,
  timeoutMs = 10_000,
  fetchFn: FetchLike = fetch,
): FrontDoor {
  const url = `${baseUrl.replace(/\/+$/, '')}/v1/events`;
  async function one(r: OutRecord): Promise<DeliveryReport> {
    const failed = (error: string): DeliveryReport => ({
      ok: false,
      topic: r.topic,
      partition: null,
      offset: null,
      error,
    });
    if (r.value === null) return failed('no value');
    const headers: Record<string, string> = { 'content-type': 'application/avro' };
    for (const [k, v] of Object.entries(r.headers ?? {}))
      headers[k] = typeof v === 'string' ? v : v.toString('latin1');
    try {
      const res = await fetchFn(url, {
        method: 'POST',
        headers,
        body: new Uint8Array(r.value),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (!res.ok) return failed(`HTTP ${res.status}: ${text.slice(0, 200)}`);
      const placement = (JSON.parse(text) as { placements?: [number, number][] }).placements?.[0];
      return {
        ok: true,
        topic: r.topic,
        partition: placement?.[0] ?? null,
        offset: placement?.[1] ?? null,
        error: null,
      };
    } catch (error) {
      return failed(
        `collector unreachable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return { send: (records) => Promise.all(records.map(one)) };
}
