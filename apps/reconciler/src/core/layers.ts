/** The event layers this reconciler checks: which kind of content each must hold and where it lives. */

import type { LayerName } from '@clickstream/contracts';
import type { LayerKind } from './expectation';

export const EVENT_LAYERS = [
  'clickstream.raw',
  'events.valid',
  'events.dlq',
  'events.clean',
  'clickhouse.valid',
  'clickhouse.dlq',
  'clickhouse.clean',
  'iceberg.clean',
] as const satisfies readonly LayerName[];
export type EventLayer = (typeof EVENT_LAYERS)[number];

export const KIND_OF: Record<EventLayer, LayerKind> = {
  'clickstream.raw': 'raw',
  'events.valid': 'valid',
  'events.dlq': 'dlq',
  'events.clean': 'clean',
  'clickhouse.valid': 'valid',
  'clickhouse.dlq': 'dlq',
  'clickhouse.clean': 'clean',
  'iceberg.clean': 'clean',
};

export type LayerSource = 'kafka' | 'clickhouse' | 'iceberg';

export const SOURCE_OF: Record<EventLayer, LayerSource> = {
  'clickstream.raw': 'kafka',
  'events.valid': 'kafka',
  'events.dlq': 'kafka',
  'events.clean': 'kafka',
  'clickhouse.valid': 'clickhouse',
  'clickhouse.dlq': 'clickhouse',
  'clickhouse.clean': 'clickhouse',
  'iceberg.clean': 'iceberg',
};

export function isEventLayer(name: string): name is EventLayer {
  return (EVENT_LAYERS as readonly string[]).includes(name);
}
