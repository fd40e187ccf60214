/** The layers whose expectation needs each event's ingest time (issue #12): the late stream and the aggregates, in Kafka and ClickHouse. */

import type { LayerName } from '@clickstream/contracts';

export const TIMED_LAYERS = [
  'events.late',
  'agg.windows',
  'agg.sessions',
  'clickhouse.events_late',
  'clickhouse.agg_windows',
  'clickhouse.agg_sessions',
] as const satisfies readonly LayerName[];
export type TimedLayer = (typeof TIMED_LAYERS)[number];

/** What a timed layer holds: late events (seqs, like an event layer), window rows or session rows. */
export type TimedKind = 'late' | 'windows' | 'sessions';

export const TIMED_KIND_OF: Record<TimedLayer, TimedKind> = {
  'events.late': 'late',
  'agg.windows': 'windows',
  'agg.sessions': 'sessions',
  'clickhouse.events_late': 'late',
  'clickhouse.agg_windows': 'windows',
  'clickhouse.agg_sessions': 'sessions',
};

export const TIMED_SOURCE_OF: Record<TimedLayer, 'kafka' | 'clickhouse'> = {
  'events.late': 'kafka',
  'agg.windows': 'kafka',
  'agg.sessions': 'kafka',
  'clickhouse.events_late': 'clickhouse',
  'clickhouse.agg_windows': 'clickhouse',
  'clickhouse.agg_sessions': 'clickhouse',
};

export function isTimedLayer(name: string): name is TimedLayer {
  return (TIMED_LAYERS as readonly string[]).includes(name);
}
