/** The ClickHouse handle: idempotent DDL, synchronous RowBinary inserts, typed queries; the only user of @clickhouse/client. */
import { Readable } from 'node:stream';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { adaptLogger } from './client-logger';
import { assertIdentifier, backfillTarget, readDdlDir } from './ddl';
import { bindParams } from './params';
import {
  encodeRowBinaryInsert,
  rowBinaryColumns,
  type DescribedColumn,
  type InsertColumn,
} from './row-binary-insert';
import type { Logger, Params, Warehouse, WarehouseOptions } from './types';

/**
 * Settings sent with every request; each is known to 18.16 and to current ClickHouse.
 * - wait_end_of_query: the HTTP answer is sent only when the query has finished, so a 200 on an
 *   INSERT means the part is written (never a streamed success followed by a failure).
 * - output_format_json_quote_64bit_integers=0: the default differs between versions (18.16 quotes);
 *   pinning it gives numbers on both. Our 64-bit values (seq, offsets, ms, counts) stay below 2^53.
 */
const COMMON_SETTINGS: ClickHouseSettings = {
  wait_end_of_query: 1,
  output_format_json_quote_64bit_integers: 0,
};

function makeClient(o: WarehouseOptions, database: string, logger: Logger): ClickHouseClient {
  return createClient({
    url: o.url,
    username: o.username ?? 'default',
    password: o.password ?? '',
    database,
    request_timeout: o.requestTimeoutMs ?? 30_000,
    clickhouse_settings: COMMON_SETTINGS,
    log: { LoggerClass: adaptLogger(logger) },
  });
}

export function createWarehouse(o: WarehouseOptions): Warehouse {
  assertIdentifier('database', o.database);
  const logger = o.logger;
  const client = makeClient(o, o.database, logger);

  async function createDatabase(): Promise<void> {
    // The main client names the database in every request, which fails while it does not exist yet.
    const bootstrap = makeClient(o, 'default', logger);
    try {
      await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${o.database}` });
    } finally {
      await bootstrap.close();
    }
  }

  async function query<T>(sql: string, params?: Params): Promise<T[]> {
    const result = await client.query({ query: bindParams(sql, params), format: 'JSONEachRow' });
    return result.json<T>();
  }

  // Each table's insertable columns, described once. An entry is dropped when an insert into its
  // table fails, so that the retry describes the table again (it may have been altered meanwhile).
  const described = new Map<string, Promise<InsertColumn[]>>();
  function columnsOf(table: string): Promise<InsertColumn[]> {
    let columns = described.get(table);
    if (columns === undefined) {
      columns = query<DescribedColumn>(`DESCRIBE TABLE ${table}`).then((d) =>
        rowBinaryColumns(table, d),
      );
      described.set(table, columns);
    }
    return columns;
  }

  return {
    database: o.database,

    async applyDdl(dir: string, backfillDir?: string): Promise<string[]> {
      const files = await readDdlDir(dir);
      // Read (and check) the backfill before changing anything, so a bad file fails first.
      const fills = (backfillDir === undefined ? [] : await readDdlDir(backfillDir)).flatMap((f) =>
        f.statements.map((statement) => ({
          file: f.name,
          statement,
          table: backfillTarget(f.name, statement),
        })),
      );
      await createDatabase();
      for (const file of files) {
        for (const statement of file.statements) await client.command({ query: statement });
        logger.info(
          { database: o.database, file: file.name, statements: file.statements.length },
          'ddl applied',
        );
      }
      // After the views exist, so that a row inserted meanwhile is seen by the view or the fill
      // (or both: the fills are idempotent in their answers). A target with rows is left alone, and
      // so is one that this DDL does not create (an older or a narrower --ddl-dir).
      const existing = await query<{ name: string }>(
        'SELECT name FROM system.tables WHERE database = {db:String}',
        { db: o.database },
      );
      const tables = new Set(existing.map((t) => t.name));
      for (const fill of fills) {
        if (!tables.has(fill.table)) continue;
        const [row] = await query<{ n: number }>(`SELECT count() AS n FROM ${fill.table}`);
        if (Number(row?.n) > 0) continue;
        await client.command({ query: fill.statement });
        logger.info(
          { database: o.database, file: fill.file, table: fill.table },
          'backfill applied',
        );
      }
      return files.map((f) => f.name);
    },

    async insertRows(table: string, rows: readonly object[]): Promise<void> {
      assertIdentifier('table', table);
      if (rows.length === 0) return;
      try {
        const encoded = encodeRowBinaryInsert(table, await columnsOf(table), rows);
        const result = await client.exec({
          query: `INSERT INTO ${table} (${encoded.columns.join(', ')}) FORMAT RowBinary`,
          values: Readable.from([encoded.body]),
        });
        // wait_end_of_query: the answer comes after the part is written; its (empty) body is drained.
        for await (const _ of result.stream as AsyncIterable<Buffer>);
      } catch (e) {
        described.delete(table);
        throw e;
      }
    },

    query,

    async queryStream(sql: string, params?: Params): Promise<AsyncIterable<Buffer>> {
      // wait_end_of_query (above): an error is the request's, never a body cut short with a 200.
      const result = await client.exec({ query: bindParams(sql, params) });
      return result.stream as AsyncIterable<Buffer>;
    },

    async command(sql: string, params?: Params): Promise<void> {
      await client.command({ query: bindParams(sql, params) });
    },

    async ping(): Promise<boolean> {
      try {
        return (await client.ping()).success;
      } catch {
        return false;
      }
    },

    close: () => client.close(),
  };
}
