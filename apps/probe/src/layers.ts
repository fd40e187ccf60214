/** The ClickHouse layers the probe watches, and the table that holds each. */

import { TABLES } from '@clickstream/warehouse';

/** valid and clean hold the probe's events row by row; windows holds counts of them (windows-layer.ts). */
export const LAYER_NAMES = ['valid', 'clean', 'windows'] as const;
export type LayerName = (typeof LAYER_NAMES)[number];

export const LAYER_TABLES: Readonly<Record<LayerName, string>> = {
  valid: TABLES.valid,
  clean: TABLES.clean,
  windows: TABLES.windows,
};
