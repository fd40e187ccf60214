/** ClickHouse of the local stack answers over HTTP and stores and returns rows. */
import { ensureStackUp, port, uniqueName } from './support/stack';

async function query(sql: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port('CLICKHOUSE_HTTP_PORT')}/`, {
    method: 'POST',
    body: sql,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse ${res.status} for '${sql}': ${text}`);
  return text.trim();
}

describe('ClickHouse', () => {
  const table = `default.${uniqueName('infra_ch').replace(/-/g, '_')}`;

  beforeAll(ensureStackUp);
  afterAll(async () => {
    await query(`DROP TABLE IF EXISTS ${table}`);
  });

  it('answers SELECT version()', async () => {
    expect(await query('SELECT version()')).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('collapses duplicate keys in a ReplacingMergeTree read with FINAL', async () => {
    await query(
      `CREATE TABLE ${table} (id UInt64, v UInt64) ENGINE = ReplacingMergeTree(v) ORDER BY id`,
    );
    await query(`INSERT INTO ${table} VALUES (1, 1), (2, 1)`);
    await query(`INSERT INTO ${table} VALUES (1, 2)`);
    expect(await query(`SELECT id, v FROM ${table} FINAL ORDER BY id FORMAT CSV`)).toBe('1,2\n2,1');
  });
});
