/** Public types of @clickstream/warehouse: options, the warehouse handle, and the row shapes of the tables. */

/** A pino-compatible logger, injected by the caller; the library never creates one. */
export interface Logger {
  debug(o: object, msg?: string): void;
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
  error(o: object, msg?: string): void;
}

export interface WarehouseOptions {
  /** HTTP endpoint, e.g. http://127.0.0.1:18123 */
  url: string;
  /** Database every unqualified table name refers to; applyDdl creates it. */
  database: string;
  username?: string;
  password?: string;
  logger: Logger;
  /** Per-request timeout (default 30000). */
  requestTimeoutMs?: number;
}

/** A value bound to a `{name:Type}` placeholder (see params.ts). */
export type ParamValue = string | number | bigint | boolean | readonly (string | number)[];
export type Params = Record<string, ParamValue>;

export interface Warehouse {
  readonly database: string;
  /**
   * Creates the database, then runs every `*.sql` file of `dir` in name order (idempotent DDL only),
   * then each `INSERT INTO <table> SELECT` of `backfillDir` (if given) whose table is empty: the one-off
   * fill of a view's target from rows older than the view. Returns the DDL files applied.
   */
  applyDdl(dir: string, backfillDir?: string): Promise<string[]>;
  /**
   * One synchronous INSERT in RowBinary: resolves only once the server has written the rows. Each
   * row is an object keyed by column name; the columns and their types are read from the server
   * once per table. Rejects on any failure, a value its column cannot hold exactly included (caller retries).
   */
  insertRows(table: string, rows: readonly object[]): Promise<void>;
  /** Runs a SELECT and returns its rows; `{name:Type}` placeholders are bound client-side (18.16 has no server-side parameters). 64-bit integers come back as JS numbers. */
  query<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  /**
   * Runs a SELECT whose SQL names its output FORMAT (RowBinary, say) and gives the response body as
   * it arrives: for readers of millions of rows that decode them without an object per row.
   * Placeholders are bound as for query.
   */
  queryStream(sql: string, params?: Params): Promise<AsyncIterable<Buffer>>;
  /** Runs a statement that returns no rows (DDL, DROP, OPTIMIZE). */
  command(sql: string, params?: Params): Promise<void>;
  /** True when the server answers /ping. Never throws. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Where a loaded record came from in Kafka. */
export interface RecordMeta {
  topic: string;
  partition: number;
  offset: number;
  /** Kafka record timestamp, ms. */
  timestamp: number;
  /**
   * The send's own sequence number from the cs-seq header. A duplicate injected by the generator
   * repeats the original's bytes (so its payload seq is the original's) but has a seq of its own,
   * and the ledger counts sends: the header wins whenever it is present.
   */
  headerSeq?: number | null;
}

/** A row of events_valid / events_clean (same columns; the keys differ, see infra/clickhouse/ddl). */
export interface EventRow {
  run_id: string;
  seq: number;
  event_id: string;
  event_type: string;
  event_time: number;
  ingest_time: number | null;
  session_id: string;
  user_id: string | null;
  page: string | null;
  product_id: string | null;
  quantity: number | null;
  amount_cents: number | null;
  currency: string | null;
  device: string | null;
  kafka_topic: string;
  kafka_partition: number;
  kafka_offset: number;
  kafka_timestamp: number;
  inserted_at: number;
}

/** A row of events_dlq. */
export interface DlqRow {
  run_id: string;
  /** -1 when the cs-seq header is absent or garbled. */
  seq: number;
  reason: string;
  detail: string;
  source_topic: string;
  /** -1 when absent. */
  source_partition: number;
  /** -1 when absent. */
  source_offset: number;
  value_base64: string;
  value_bytes: number;
  value_is_null: 0 | 1;
  kafka_topic: string;
  kafka_partition: number;
  kafka_offset: number;
  kafka_timestamp: number;
  inserted_at: number;
}

/** A row of load_rejects: a valid/clean record the loader could not decode. */
export interface RejectRow {
  kafka_topic: string;
  kafka_partition: number;
  kafka_offset: number;
  kafka_timestamp: number;
  run_id: string;
  seq: number;
  reason: string;
  detail: string;
  value_base64: string;
  inserted_at: number;
}
