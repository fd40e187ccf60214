/** The ClickHouse layers the probe watches: the table that holds each, and how the probe's events it shows are read. */

import { seqsFrom, TABLES, windowCountsFrom, type Warehouse } from '@clickstream/warehouse';
import type { WindowRanks } from './windows-layer';

/** valid and clean hold the probe's events row by row; windows holds counts of them (windows-layer.ts). */
export const LAYER_NAMES = ['valid', 'clean', 'windows'] as const;
export type LayerName = (typeof LAYER_NAMES)[number];

/** What a layer is read with: the warehouse, the probe's run, and its sends ranked per window. */
export interface LayerSource {
  warehouse: Pick<Warehouse, 'query'>;
  runId: string;
  ranks: WindowRanks;
}

export interface Layer {
  table: string;
  /** The probe's seqs at or above `from` that the layer shows now. */
  shownFrom(source: LayerSource, from: number): Promise<number[]>;
}

/** A layer that holds the probe's events row by row: the seqs it shows are read as they are. */
function rowLayer(table: string): Layer {
  return { table, shownFrom: (s, from) => seqsFrom(s.warehouse, table, s.runId, from) };
}

/** A layer that holds counts per window: an event shows once its window counts up to its rank. */
function windowLayer(table: string): Layer {
  return {
    table,
    async shownFrom(s, from) {
      const windowStart = s.ranks.windowOf(from);
      if (windowStart === undefined) return [];
      s.ranks.forgetBelow(from);
      return s.ranks.covered(await windowCountsFrom(s.warehouse, table, s.runId, windowStart));
    },
  };
}

export const LAYERS: Readonly<Record<LayerName, Layer>> = {
  valid: rowLayer(TABLES.valid),
  clean: rowLayer(TABLES.clean),
  windows: windowLayer(TABLES.windows),
};
