/** Public entry point of @clickstream/warehouse: the ClickHouse layer (DDL, inserts, queries, row mappers). */

export type {
  Logger,
  WarehouseOptions,
  Warehouse,
  Params,
  ParamValue,
  RecordMeta,
  EventRow,
  DlqRow,
  RejectRow,
} from './types';
export { createWarehouse } from './warehouse';
export { bindParams, quoteString, ParamError } from './params';
export {
  splitStatements,
  readDdlDir,
  assertIdentifier,
  backfillTarget,
  DDL_DIR,
  BACKFILL_DIR,
} from './ddl';
export type { DdlFile } from './ddl';
export { toEventRow, toValidRow, toCleanRow, toDlqRow, toRejectRow } from './rows';
export type { HeaderMap } from './rows';
export { seqsFrom, windowCountsFrom } from './probe-reads';
export {
  readRunRows,
  readRunRecords,
  scanRunRecords,
  runRecordsRowBinary,
  readRunIngestTimes,
  EVENT_TABLE_KEYS,
} from './run-rows';
export type {
  RunRow,
  RunRows,
  RunRecord,
  RunRecords,
  RunRecordRow,
  RunRecordsScan,
} from './run-rows';
export { RowBinaryRows, encodeRowBinary } from './row-binary';
export type { RowBinaryType } from './row-binary';
export { TABLES, TABLE_ROLES, DEFAULT_DATABASE, DASHBOARD_COPIES, PRODUCT_ROLLUP } from './tables';
export type { TableName, TableRole } from './tables';
export {
  FUNNEL_STEPS,
  MAX_FUNNEL_RANGE_MS,
  DASHBOARD_TABLES,
  SOURCE_TABLES,
  MAX_WINDOW_MS,
  funnel,
  revenuePerMinute,
  topProducts,
  wholeMinutes,
  activeSessions,
  deadLettersByReason,
} from './dashboard';
export type {
  FunnelStep,
  DashboardRange,
  FunnelQuery,
  FunnelResult,
  RevenueMinute,
  ProductCount,
  TopProducts,
  ReasonCount,
  RevenueSource,
} from './dashboard';
export type { EventTableRole } from './tables';
export {
  toWindowRow,
  toSessionRow,
  readWindowRows,
  readSessionRows,
  AGGREGATE_TABLE_KEYS,
} from './aggregates';
export type {
  WindowRow,
  SessionRow,
  AggregateRows,
  StoredWindow,
  StoredSession,
} from './aggregates';
