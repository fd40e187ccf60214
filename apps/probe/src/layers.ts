/** The ClickHouse layers the probe watches, and the table that holds each. */

import { TABLES } from '@clickstream/warehouse';

export const LAYER_NAMES = ['valid', 'clean'] as const;
export type LayerName = (typeof LAYER_NAMES)[number];

export const LAYER_TABLES: Readonly<Record<LayerName, string>> = {
  valid: TABLES.valid,
  clean: TABLES.clean,
};
