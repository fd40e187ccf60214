/**
 * Freshness and throughput per layer, read from Prometheus' HTTP API. Every row is one constant
 * PromQL expression that yields one number; a row whose series do not exist (an app not running,
 * the probe's metrics not deployed) is reported as "no data", never as zero.
 */

export interface LayerQuery {
  layer: string;
  kind: 'freshness' | 'throughput';
  /** What the number means, for the page. */
  measure: string;
  unit: 's' | 'events/s';
  promql: string;
}

export type LayerValue =
  { state: 'ok'; value: number } | { state: 'no_data' } | { state: 'error'; detail: string };

export type LayerRow = LayerQuery & LayerValue;

const q = (p: number, layer: string): string =>
  `histogram_quantile(${p}, sum by (le) (rate(probe_freshness_seconds_bucket{layer="${layer}"}[5m])))`;
const age = (table: string): string =>
  `histogram_quantile(0.99, sum by (le) (rate(loader_event_age_at_insert_seconds_bucket{table="${table}"}[5m])))`;
const rate = (metric: string, selector = ''): string => `sum(rate(${metric}${selector}[1m]))`;

/** The rows of the layers panel, in page order. */
export const LAYER_QUERIES: readonly LayerQuery[] = [
  {
    layer: 'ClickHouse events_valid',
    kind: 'freshness',
    measure: 'probe send -> queryable, p50',
    unit: 's',
    promql: q(0.5, 'valid'),
  },
  {
    layer: 'ClickHouse events_valid',
    kind: 'freshness',
    measure: 'probe send -> queryable, p99',
    unit: 's',
    promql: q(0.99, 'valid'),
  },
  {
    layer: 'ClickHouse events_valid',
    kind: 'freshness',
    measure: 'age of the newest probe event seen',
    unit: 's',
    promql: 'max(probe_newest_seen_age_seconds{layer="valid"})',
  },
  {
    layer: 'ClickHouse events_clean',
    kind: 'freshness',
    measure: 'probe send -> queryable, p50',
    unit: 's',
    promql: q(0.5, 'clean'),
  },
  {
    layer: 'ClickHouse events_clean',
    kind: 'freshness',
    measure: 'probe send -> queryable, p99',
    unit: 's',
    promql: q(0.99, 'clean'),
  },
  {
    layer: 'ClickHouse events_clean',
    kind: 'freshness',
    measure: 'age of the newest probe event seen',
    unit: 's',
    promql: 'max(probe_newest_seen_age_seconds{layer="clean"})',
  },
  {
    layer: 'ClickHouse agg_windows',
    kind: 'freshness',
    measure: 'probe send -> counted in its window, p50',
    unit: 's',
    promql: q(0.5, 'windows'),
  },
  {
    layer: 'ClickHouse agg_windows',
    kind: 'freshness',
    measure: 'probe send -> counted in its window, p99',
    unit: 's',
    promql: q(0.99, 'windows'),
  },
  {
    layer: 'ClickHouse agg_windows',
    kind: 'freshness',
    measure: 'age of the newest probe event counted',
    unit: 's',
    promql: 'max(probe_newest_seen_age_seconds{layer="windows"})',
  },
  {
    layer: 'ClickHouse events_valid',
    kind: 'freshness',
    measure: 'event age at insert (ingest -> loaded), p99',
    unit: 's',
    promql: age('events_valid'),
  },
  {
    layer: 'ClickHouse events_clean',
    kind: 'freshness',
    measure: 'event age at insert (ingest -> loaded), p99',
    unit: 's',
    promql: age('events_clean'),
  },
  {
    layer: 'clickstream.raw',
    kind: 'throughput',
    measure: 'records read by the gatekeeper',
    unit: 'events/s',
    promql: rate('gatekeeper_records_in_total'),
  },
  {
    layer: 'events.valid',
    kind: 'throughput',
    measure: 'records written by the gatekeeper',
    unit: 'events/s',
    promql: rate('gatekeeper_records_valid_total'),
  },
  {
    layer: 'events.dlq',
    kind: 'throughput',
    measure: 'records dead-lettered by the gatekeeper',
    unit: 'events/s',
    promql: rate('gatekeeper_records_dead_lettered_total'),
  },
  {
    layer: 'ClickHouse events_valid',
    kind: 'throughput',
    measure: 'rows inserted by the loader',
    unit: 'events/s',
    promql: rate('loader_rows_inserted_total', '{table="events_valid"}'),
  },
  {
    layer: 'ClickHouse events_clean',
    kind: 'throughput',
    measure: 'rows inserted by the loader',
    unit: 'events/s',
    promql: rate('loader_rows_inserted_total', '{table="events_clean"}'),
  },
  {
    layer: 'ClickHouse events_dlq',
    kind: 'throughput',
    measure: 'rows inserted by the loader',
    unit: 'events/s',
    promql: rate('loader_rows_inserted_total', '{table="events_dlq"}'),
  },
];

/** Prometheus' /api/v1/query answer, as far as it is read here. */
interface QueryResponse {
  status: 'success' | 'error';
  error?: string;
  data?: { resultType: string; result: { value: [number, string] }[] };
}

/** One instant value of a single-number expression; NaN/Inf (a histogram without samples) is no data. */
export function valueOf(body: QueryResponse): LayerValue {
  if (body.status !== 'success')
    return { state: 'error', detail: body.error ?? 'status not success' };
  const result = body.data?.result ?? [];
  if (result.length === 0) return { state: 'no_data' };
  const v = Number(result[0]?.value[1]);
  return Number.isFinite(v) ? { state: 'ok', value: v } : { state: 'no_data' };
}

export type Fetch = (
  url: string,
  init: { signal: AbortSignal },
) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;

/** Reads every row at instant `atMs`; a failing request marks its row 'error' and never throws. */
export async function readLayers(
  baseUrl: string,
  atMs: number,
  timeoutMs: number,
  fetchFn: Fetch,
): Promise<LayerRow[]> {
  return Promise.all(
    LAYER_QUERIES.map(async (row): Promise<LayerRow> => {
      const url = `${baseUrl.replace(/\/$/, '')}/api/v1/query?${new URLSearchParams({
        query: row.promql,
        time: (atMs / 1000).toFixed(3),
      }).toString()}`;
      try {
        const res = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs) });
        const body = (await res.json()) as QueryResponse;
        return { ...row, ...valueOf(body) };
      } catch (err) {
        return { ...row, state: 'error', detail: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
}
