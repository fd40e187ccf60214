/** The loader's Prometheus metrics, in one registry that the HTTP server exposes. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface LoaderMetrics {
  registry: Registry;
  rowsInserted: Counter<'table'>;
  insertSeconds: Histogram<'table'>;
  /** inserted_at - ingest_time of each loaded event: the loader's share of freshness. */
  eventAgeSeconds: Histogram<'table'>;
  flushSeconds: Histogram;
  flushFailures: Counter;
  rejected: Counter<'topic' | 'reason'>;
  lag: Gauge<'topic'>;
  lastFlush: Gauge;
}

export function createMetrics(): LoaderMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    rowsInserted: new Counter({
      name: 'loader_rows_inserted_total',
      help: 'Rows inserted into ClickHouse, by table (a retried batch counts again)',
      labelNames: ['table'],
      registers,
    }),
    insertSeconds: new Histogram({
      name: 'loader_insert_duration_seconds',
      help: 'Duration of one successful synchronous INSERT, by table',
      labelNames: ['table'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    eventAgeSeconds: new Histogram({
      name: 'loader_event_age_at_insert_seconds',
      help: 'inserted_at - ingest_time of loaded events, by table',
      labelNames: ['table'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 300],
      registers,
    }),
    flushSeconds: new Histogram({
      name: 'loader_flush_duration_seconds',
      help: 'Duration of a whole batch flush (all tables, retries included) before its offsets are committed',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    flushFailures: new Counter({
      name: 'loader_flush_failures_total',
      help: 'Failed batch flush attempts (each is retried, or fails the loader)',
      registers,
    }),
    rejected: new Counter({
      name: 'loader_records_rejected_total',
      help: 'valid/clean records that did not decode (kept in load_rejects)',
      labelNames: ['topic', 'reason'],
      registers,
    }),
    lag: new Gauge({
      name: 'loader_consumer_lag',
      help: 'Records not yet committed by the loader group, by topic (read_committed end offsets)',
      labelNames: ['topic'],
      registers,
    }),
    lastFlush: new Gauge({
      name: 'loader_last_flush_timestamp_seconds',
      help: 'Unix time of the last successful flush',
      registers,
    }),
  };
}
