/** Table names of the clickstream database (infra/clickhouse/ddl), and the loader's topic -> table roles. */

export const TABLES = {
  valid: 'events_valid',
  clean: 'events_clean',
  dlq: 'events_dlq',
  rejects: 'load_rejects',
  late: 'events_late',
  windows: 'agg_windows',
  sessions: 'agg_sessions',
} as const;

export type TableName = (typeof TABLES)[keyof typeof TABLES];

/** The topics the loader reads, by the role that decides their table and row mapper. */
export const TABLE_ROLES = ['valid', 'clean', 'dlq', 'late', 'windows', 'sessions'] as const;
export type TableRole = (typeof TABLE_ROLES)[number];
/** Roles whose table holds one row per event (the aggregate tables hold one row per window or session). */
export type EventTableRole = Exclude<TableRole, 'windows' | 'sessions'>;

/**
 * Time-ordered copies the dashboard reads (infra/clickhouse/ddl/008_dashboard_by_time.sql): each
 * table is fed, row for row, by its materialized view from its source table; no loader writes them.
 */
export const DASHBOARD_COPIES = {
  events: { table: 'events_by_time', view: 'events_by_time_mv', source: 'events_clean' },
  dlq: { table: 'events_dlq_by_time', view: 'events_dlq_by_time_mv', source: 'events_dlq' },
  windows: { table: 'agg_windows_by_time', view: 'agg_windows_by_time_mv', source: 'agg_windows' },
} as const;

/**
 * The top-products rollup (infra/clickhouse/ddl/009_product_minutes.sql): uniqExact states of
 * event ids per (minute, event_type, product, run_id), fed by its view from events_clean.
 */
export const PRODUCT_ROLLUP = {
  table: 'product_minutes',
  view: 'product_minutes_mv',
  source: 'events_clean',
} as const;

export const DEFAULT_DATABASE = 'clickstream';
