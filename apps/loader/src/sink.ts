/** The batch handler given to the at-least-once consumer: map, then insert every table synchronously; any failure rejects (kafka-tx retries, never commits). */
import type { InRecord } from '@clickstream/kafka-tx';
import { TABLES, type TableRole, type Warehouse } from '@clickstream/warehouse';
import { toTableBatch } from './batch';
import type { LoaderMetrics } from './metrics';

export interface SinkDeps {
  warehouse: Pick<Warehouse, 'insertRows'>;
  roleOf: ReadonlyMap<string, TableRole>;
  metrics: LoaderMetrics;
  now(): number;
}

export function createSink(d: SinkDeps): (records: InRecord[]) => Promise<void> {
  async function insert(table: string, rows: readonly object[], insertedAt: number): Promise<void> {
    if (rows.length === 0) return;
    const end = d.metrics.insertSeconds.startTimer({ table });
    await d.warehouse.insertRows(table, rows);
    end();
    d.metrics.rowsInserted.inc({ table }, rows.length);
    for (const r of rows) {
      const ingestTime = (r as { ingest_time?: unknown }).ingest_time;
      if (typeof ingestTime === 'number')
        d.metrics.eventAgeSeconds.observe({ table }, (insertedAt - ingestTime) / 1000);
    }
  }

  return async (records: InRecord[]): Promise<void> => {
    const insertedAt = d.now();
    const batch = toTableBatch(records, d.roleOf, insertedAt);
    try {
      // Sequential on purpose: the valid table (the freshness target) goes first, and a failure
      // part-way just means the retry re-inserts rows that FINAL collapses.
      await insert(TABLES.valid, batch.valid, insertedAt);
      await insert(TABLES.clean, batch.clean, insertedAt);
      await insert(TABLES.dlq, batch.dlq, insertedAt);
      await insert(TABLES.late, batch.late, insertedAt);
      await insert(TABLES.windows, batch.windows, insertedAt);
      await insert(TABLES.sessions, batch.sessions, insertedAt);
      await insert(TABLES.rejects, batch.rejects, insertedAt);
    } catch (e) {
      d.metrics.flushFailures.inc();
      throw e;
    }
    for (const r of batch.rejects)
      d.metrics.rejected.inc({ topic: r.kafka_topic, reason: r.reason });
  };
}
