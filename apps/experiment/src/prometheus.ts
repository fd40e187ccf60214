/** Reads the probe's series from Prometheus (query_range, 1 s steps) into the shapes timeline.ts works on. */

import type { Buckets, HistogramSeries } from './timeline';

interface RangeResult {
  metric: Record<string, string>;
  values: [number, string][];
}

export interface Prometheus {
  range(query: string, fromS: number, toS: number, stepS?: number): Promise<RangeResult[]>;
  instant(query: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
}

export function prometheusClient(baseUrl: string): Prometheus {
  async function get<T>(path: string, params: Record<string, string>): Promise<T> {
    const url = `${baseUrl}${path}?${new URLSearchParams(params).toString()}`;
    const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`prometheus ${path}: HTTP ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as { status: string; data: { result: T }; error?: string };
    if (body.status !== 'success')
      throw new Error(`prometheus ${path}: ${body.error ?? body.status}`);
    return body.data.result;
  }
  return {
    async range(query, fromS, toS, stepS = 1) {
      // Prometheus refuses more than 11,000 points per series: split long ranges.
      const out = new Map<string, RangeResult>();
      const chunk = 10_000 * stepS;
      for (let start = fromS; start <= toS; start += chunk + stepS) {
        const end = Math.min(toS, start + chunk);
        const part = await get<RangeResult[]>('/api/v1/query_range', {
          query,
          start: String(start),
          end: String(end),
          step: `${stepS}s`,
        });
        for (const r of part) {
          const key = JSON.stringify(r.metric);
          const seen = out.get(key);
          if (seen) seen.values.push(...r.values);
          else out.set(key, { metric: r.metric, values: [...r.values] });
        }
      }
      return [...out.values()];
    },
    instant: (query) => get('/api/v1/query', { query }),
  };
}

/** probe_newest_seen_age_seconds per layer and second. */
export async function ageByLayer(
  prom: Prometheus,
  fromS: number,
  toS: number,
  selector: string,
): Promise<Map<string, Map<number, number>>> {
  const result = await prom.range(
    `max by (layer) (probe_newest_seen_age_seconds{${selector}})`,
    fromS,
    toS,
  );
  const out = new Map<string, Map<number, number>>();
  for (const r of result) {
    const layer = r.metric.layer ?? '?';
    out.set(layer, new Map(r.values.map(([t, v]) => [Math.round(t), Number(v)])));
  }
  return out;
}

/** The cumulative probe_freshness_seconds histogram per layer and second. */
export async function freshnessHistograms(
  prom: Prometheus,
  fromS: number,
  toS: number,
  selector: string,
): Promise<Map<string, HistogramSeries>> {
  const result = await prom.range(
    `sum by (layer, le) (probe_freshness_seconds_bucket{${selector}})`,
    fromS,
    toS,
  );
  const byLayer = new Map<string, Map<number, Map<number, number>>>();
  for (const r of result) {
    const layer = r.metric.layer ?? '?';
    const le = r.metric.le === '+Inf' ? Infinity : Number(r.metric.le);
    let series = byLayer.get(layer);
    if (!series) byLayer.set(layer, (series = new Map()));
    for (const [t, v] of r.values) {
      const s = Math.round(t);
      let buckets = series.get(s);
      if (!buckets) series.set(s, (buckets = new Map()));
      buckets.set(le, Number(v));
    }
  }
  return byLayer as Map<string, Map<number, Buckets>>;
}

/** Node id (1..3) of the active KRaft controller, from the brokers' JMX metrics; null if none says so. */
export async function activeController(prom: Prometheus): Promise<number | null> {
  const r = await prom.instant('kafka_controller_kafkacontroller_activecontrollercount == 1');
  return r.length === 1 ? nodeOfInstance(r[0]?.metric.instance) : null;
}

/** Node ids with at least one partition leadership, most leaderships first. */
export async function partitionLeaders(prom: Prometheus): Promise<number[]> {
  const r = await prom.instant('kafka_server_replicamanager_leadercount > 0');
  return r
    .sort((a, b) => Number(b.value[1]) - Number(a.value[1]))
    .map((x) => nodeOfInstance(x.metric.instance))
    .filter((n): n is number => n !== null);
}

/** Broker JMX exporters listen on N9094 (infra/local/ports.env): the first digit of the port is the node. */
export function nodeOfInstance(instance: string | undefined): number | null {
  const m = /:([123])9094$/.exec(instance ?? '');
  return m ? Number(m[1]) : null;
}
