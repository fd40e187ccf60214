/**
 * The dashboard's ClickHouse user (infra/clickhouse/config/users.xml) on the running server: it
 * reads the clickstream database and can do nothing else: no INSERT, ALTER, DROP, CREATE, no
 * setting changes, no table functions (remote() as `default` would be an escalation), no other
 * database, no users table.
 */
import { createWarehouse, DDL_DIR, type Warehouse } from '@clickstream/warehouse';
import { CLICKHOUSE_URL, DASHBOARD_USER as DASHBOARD, quietLogger, uniqueName } from './helpers';

const READONLY = /readonly mode|Code: 164/i;

describe('the dashboard ClickHouse user', () => {
  let admin: Warehouse;
  let dash: Warehouse;
  const other = uniqueName('dash_other');
  // The refused writes aim at a throw-away table of the clickstream database, never at a shared one.
  const marker = uniqueName('ro');
  const victim = uniqueName('dash_ro');

  beforeAll(async () => {
    admin = createWarehouse({ url: CLICKHOUSE_URL, database: 'clickstream', logger: quietLogger });
    await admin.applyDdl(DDL_DIR); // idempotent: the loader applies the same at start
    await admin.command(
      `CREATE TABLE ${victim} (kafka_topic String, kafka_offset UInt64) ENGINE = MergeTree ORDER BY kafka_offset`,
    );
    await admin.command(`CREATE DATABASE IF NOT EXISTS ${other}`);
    await admin.command(`CREATE TABLE ${other}.t (a UInt8) ENGINE = Memory`);
    dash = createWarehouse({
      url: CLICKHOUSE_URL,
      database: 'clickstream',
      logger: quietLogger,
      ...DASHBOARD,
    });
  });

  afterAll(async () => {
    await admin.command(`DROP DATABASE IF EXISTS ${other}`);
    await admin.command(`DROP TABLE IF EXISTS ${victim}`);
    await Promise.all([admin.close(), dash.close()]);
  });

  const rejects = async (sql: string, why: RegExp): Promise<void> => {
    await expect(dash.command(sql)).rejects.toThrow(why);
  };
  const count = async (): Promise<number> =>
    Number(
      (
        await admin.query<{ n: number }>(
          `SELECT count() AS n FROM ${victim} WHERE kafka_topic = {m:String}`,
          {
            m: marker,
          },
        )
      )[0]?.n,
    );

  it('reads the clickstream tables', async () => {
    const rows = await dash.query<{ n: number }>(
      'SELECT count() AS n FROM load_rejects WHERE kafka_topic = {m:String}',
      {
        m: marker,
      },
    );
    expect(Number(rows[0]?.n)).toBe(0);
    expect(await dash.ping()).toBe(true);
  });

  it('cannot INSERT', async () => {
    await expect(
      dash.insertRows(victim, [{ kafka_topic: marker, kafka_offset: 1 }]),
    ).rejects.toThrow(READONLY);
    await rejects(
      `INSERT INTO ${victim} (kafka_topic, kafka_offset) SELECT '${marker}', 2`,
      READONLY,
    );
    expect(await count()).toBe(0);
  });

  it('cannot ALTER (columns or mutations), DROP, TRUNCATE, CREATE or RENAME', async () => {
    await rejects(`ALTER TABLE ${victim} ADD COLUMN x UInt8`, READONLY);
    await rejects(`ALTER TABLE ${victim} DELETE WHERE 1`, READONLY);
    await rejects(`DROP TABLE ${victim}`, READONLY);
    await rejects(`DROP DATABASE ${other}`, /readonly mode|Code: 164|Access denied/i);
    await rejects(`TRUNCATE TABLE ${victim}`, READONLY);
    await rejects('CREATE TABLE x (a UInt8) ENGINE = Memory', READONLY);
    await rejects(`RENAME TABLE ${victim} TO ${victim}_renamed`, READONLY);
    await rejects(`OPTIMIZE TABLE ${victim} FINAL`, READONLY);
    expect(await count()).toBe(0);
    await admin.insertRows(victim, [{ kafka_topic: 'kept', kafka_offset: 9 }]);
    await rejects(`ALTER TABLE ${victim} DELETE WHERE 1`, READONLY);
    const kept = await admin.query<{ n: number }>(`SELECT count() AS n FROM ${victim}`);
    expect(Number(kept[0]?.n)).toBe(1);
  });

  it('cannot change its settings, so it cannot lift readonly or its limits', async () => {
    await rejects('SET readonly = 0', READONLY);
    await rejects('SET max_memory_usage = 0', READONLY);
  });

  it('cannot use table functions: no remote() as another user, no file(), no url()', async () => {
    const forbidden =
      /Table functions are forbidden in readonly mode|Code: 164|ACCESS_DENIED|Not enough privileges/i;
    await expect(
      dash.query("SELECT * FROM remote('127.0.0.1:19000', system.one, 'default', '')"),
    ).rejects.toThrow(forbidden);
    await expect(
      dash.query("SELECT * FROM file('users.xml', 'LineAsString', 's String')"),
    ).rejects.toThrow(forbidden);
    await expect(
      dash.query("SELECT * FROM url('http://127.0.0.1:18123/?query=SELECT+1', 'TSV', 'a UInt8')"),
    ).rejects.toThrow(forbidden);
  });

  it('cannot read another database or the users and their passwords', async () => {
    await expect(dash.query(`SELECT * FROM ${other}.t`)).rejects.toThrow(
      /Access denied|Code: 291|ACCESS_DENIED/i,
    );
    await expect(dash.query('SELECT * FROM default.t')).rejects.toThrow(
      /Access denied|Code: 291|ACCESS_DENIED|doesn't exist/i,
    );
    // 18.16 has no system.users (users live in users.xml only); current ClickHouse needs SHOW USERS.
    await expect(dash.query('SELECT * FROM system.users')).rejects.toThrow(
      /doesn't exist|Code: 60|ACCESS_DENIED|Not enough/i,
    );
    const settings = await dash.query<{ name: string; value: string }>(
      "SELECT name, value FROM system.settings WHERE name IN ('readonly', 'max_execution_time')",
    );
    expect(Object.fromEntries(settings.map((s) => [s.name, s.value]))).toEqual({
      readonly: '1',
      max_execution_time: '20',
    });
  });

  it('needs its password', async () => {
    const wrong = createWarehouse({
      url: CLICKHOUSE_URL,
      database: 'clickstream',
      logger: quietLogger,
      username: 'dashboard',
      password: 'guess',
    });
    try {
      await expect(wrong.query('SELECT 1')).rejects.toThrow(
        /password|Code: 193|Code: 516|Authentication/i,
      );
    } finally {
      await wrong.close();
    }
  });
});
