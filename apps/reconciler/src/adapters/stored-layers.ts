/**
 * The stored layers (the ClickHouse event tables and the Iceberg table), read one after another
 * beside the Kafka topics: in this thread (tests, or without a worker) or on a worker thread
 * (stored-worker.ts), which hands the contents back with their event ids already checked.
 */

import { readClickHouseLayer, CLICKHOUSE_TABLES, type SqlSource } from './clickhouse';
import { readIcebergLayer, type IcebergLayerOptions } from './iceberg';
import { checkEventIds, type LayerRead } from '../core/contents';
import { SOURCE_OF, type EventLayer } from '../core/layers';

/** What to read: the stored layers among `layers`, for one run. */
export interface StoredRequest {
  layers: readonly EventLayer[];
  runId: string;
  /** The topic each table is fed from. */
  topics: { valid: string; dlq: string; clean: string };
  icebergTablePath: string;
  examples: number;
}

export interface StoredDeps {
  sql: () => SqlSource;
  iceberg?: (o: IcebergLayerOptions) => Promise<LayerRead>;
}

/** Whether a layer is read by readStoredLayers (the ClickHouse and Iceberg event layers). */
export function isStoredLayer(layer: EventLayer): boolean {
  return SOURCE_OF[layer] === 'clickhouse' || layer === 'iceberg.clean';
}

/** Reads each requested stored layer, in the order of `layers`; a layer that cannot be read is a failed read. */
export async function readStoredLayers(
  deps: StoredDeps,
  req: StoredRequest,
  done: (layer: EventLayer, read: LayerRead) => void = () => undefined,
): Promise<Map<EventLayer, LayerRead>> {
  const out = new Map<EventLayer, LayerRead>();
  const set = (layer: EventLayer, read: LayerRead): void => {
    out.set(layer, read);
    done(layer, read);
  };
  const tables = req.layers.filter((l) => SOURCE_OF[l] === 'clickhouse');
  if (tables.length > 0) {
    const sql = deps.sql();
    for (const layer of tables) {
      const t = CLICKHOUSE_TABLES[layer as keyof typeof CLICKHOUSE_TABLES];
      set(
        layer,
        await readClickHouseLayer(sql, {
          ...t,
          topic: req.topics[t.topic],
          runId: req.runId,
          examples: req.examples,
        }),
      );
    }
  }
  if (req.layers.includes('iceberg.clean')) {
    const readIceberg = deps.iceberg ?? readIcebergLayer;
    set('iceberg.clean', await readIceberg({ tablePath: req.icebergTablePath, runId: req.runId }));
  }
  return out;
}

/**
 * A read made ready to cross to another thread: its event ids checked against the ledger's
 * (contents.ts, checkEventIds), so that millions of strings are not copied back.
 */
export function portableRead(
  read: LayerRead,
  ledgerEventIds: ArrayLike<string | null | undefined>,
): LayerRead {
  return read.ok ? { ok: true, contents: checkEventIds(read.contents, ledgerEventIds) } : read;
}
