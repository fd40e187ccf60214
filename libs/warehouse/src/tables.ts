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

export const DEFAULT_DATABASE = 'clickstream';
