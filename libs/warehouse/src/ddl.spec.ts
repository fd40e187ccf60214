import {
  assertIdentifier,
  BACKFILL_DIR,
  backfillTarget,
  DDL_DIR,
  readDdlDir,
  splitStatements,
} from './ddl';
import { FUNNEL_STEPS } from './dashboard';
import { DASHBOARD_COPIES, PRODUCT_ROLLUP } from './tables';

describe('splitStatements', () => {
  it('splits on semicolons outside quotes and drops comment lines', () => {
    expect(
      splitStatements(
        "-- header; not a statement\nCREATE TABLE a (x String DEFAULT ';');\n\nSELECT 1;\n",
      ),
    ).toEqual(["CREATE TABLE a (x String DEFAULT ';')", 'SELECT 1']);
  });

  it('returns nothing for an empty script', () => {
    expect(splitStatements('-- only a comment\n\n')).toEqual([]);
  });
});

describe('the repository DDL', () => {
  it('is idempotent and database-agnostic: CREATE ... IF NOT EXISTS on unqualified names', async () => {
    const files = await readDdlDir(DDL_DIR);
    expect(files.map((f) => f.name)).toEqual([
      '001_events_valid.sql',
      '002_events_clean.sql',
      '003_events_dlq.sql',
      '004_load_rejects.sql',
      '005_events_late.sql',
      '006_agg_windows.sql',
      '007_agg_sessions.sql',
      '008_dashboard_by_time.sql',
      '009_product_minutes.sql',
    ]);
    for (const f of files) {
      expect(f.statements.length).toBeGreaterThan(0);
      for (const s of f.statements) {
        expect(s).toMatch(
          /^CREATE (TABLE IF NOT EXISTS [a-z_]+\s|MATERIALIZED VIEW IF NOT EXISTS [a-z_]+ TO [a-z_]+ AS\s)/,
        );
        // Features newer than 18.16 must not creep in.
        expect(s).not.toMatch(/DateTime64|LowCardinality|TTL|CODEC/);
      }
    }
  });
});

const statements = async (dir: string): Promise<string[]> =>
  (await readDdlDir(dir)).flatMap((f) => f.statements);
const viewOf = (all: string[], view: string): string | undefined =>
  all.find((s) => s.startsWith(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${view} `));
const tableOf = (all: string[], table: string): string | undefined =>
  all.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${table}\n`));
const selectOf = (view: string | undefined): string | undefined =>
  view?.slice(view.indexOf(' AS\nSELECT ') + ' AS\n'.length);
const keyOf = (table: string | undefined): string | undefined =>
  table?.match(/ORDER BY \(([^)]*)\)/)?.[1];

describe('the dashboard copies (008_dashboard_by_time.sql)', () => {
  it('are fed by views that copy rows and never aggregate (a view would count a redelivered block twice)', async () => {
    const all = await statements(DDL_DIR);
    for (const c of Object.values(DASHBOARD_COPIES)) {
      const view = viewOf(all, c.view);
      expect(view).toMatch(new RegExp(`TO ${c.table} AS\\s+SELECT [^;]+\\s+FROM ${c.source}$`));
      // Scalar functions of the row are fine; an aggregate, a GROUP BY or a join is not.
      expect(view).not.toMatch(
        /GROUP BY|JOIN|\b(sum|count|uniq\w*|avg|any\w*|argM\w+|min|max|group\w+|\w+State|\w+Merge)\s*\(/i,
      );
    }
  });

  it('compute funnel_step from the same steps as the funnel read', async () => {
    const view = viewOf(await statements(DDL_DIR), DASHBOARD_COPIES.events.view);
    const steps = view?.match(/indexOf\(\[([^\]]*)\], event_type\) - 1\) AS funnel_step/)?.[1];
    expect(steps?.split(',').map((x) => x.trim().replace(/'/g, ''))).toEqual([...FUNNEL_STEPS]);
  });

  it('order each copy by its time column first and end the key with the source row identity', async () => {
    const all = await statements(DDL_DIR);
    const key = (table: string): string | undefined => keyOf(tableOf(all, table));
    expect(key(DASHBOARD_COPIES.events.table)).toBe('event_time, run_id, event_id');
    expect(key(DASHBOARD_COPIES.dlq.table)).toBe(
      'kafka_timestamp, kafka_topic, kafka_partition, kafka_offset',
    );
    expect(key(DASHBOARD_COPIES.windows.table)).toBe('window_start, event_type, run_id');
  });

  it("have a backfill for rows older than their views: per copy, the view's own SELECT", async () => {
    const all = await statements(DDL_DIR);
    const fill = await statements(BACKFILL_DIR);
    // One per copy, and one for the product rollup.
    expect(fill).toHaveLength(Object.keys(DASHBOARD_COPIES).length + 1);
    for (const c of Object.values(DASHBOARD_COPIES)) {
      const select = selectOf(viewOf(all, c.view));
      expect(select).toMatch(new RegExp(`^SELECT [^;]+\\s+FROM ${c.source}$`));
      expect(fill).toContain(`INSERT INTO ${c.table}\n${select}`);
    }
  });
});

describe('the product rollup (009_product_minutes.sql)', () => {
  it("aggregates with uniqExactState only (a redelivered block adds ids it already has, never a count), grouped by the table's key", async () => {
    const all = await statements(DDL_DIR);
    const view = viewOf(all, PRODUCT_ROLLUP.view);
    const table = tableOf(all, PRODUCT_ROLLUP.table);
    expect(view).toMatch(
      new RegExp(
        `TO ${PRODUCT_ROLLUP.table} AS\\s+SELECT [^;]+\\s+FROM ${PRODUCT_ROLLUP.source}\\s`,
      ),
    );
    const calls = [...(view ?? '').matchAll(/\b([A-Za-z]+)\s*\(/g)].map((m) => m[1]);
    const aggregates = calls.filter((f) =>
      /^(sum|count|uniq\w*|avg|any\w*|argM\w+|min|max|group\w+)$|State$|Merge$/i.test(f ?? ''),
    );
    expect(aggregates).toEqual(['uniqExactState']);
    expect(table).toMatch(/events AggregateFunction\(uniqExact, String\)/);
    expect(table).toMatch(/ENGINE = AggregatingMergeTree\(\)/);
    const key = keyOf(table);
    expect(key).toBe('minute, event_type, product, run_id');
    expect(view?.match(/GROUP BY ([^;]+)$/)?.[1]).toBe(key);
  });

  it("has a backfill that is the view's SELECT into the table", async () => {
    const select = selectOf(viewOf(await statements(DDL_DIR), PRODUCT_ROLLUP.view));
    const fill = await statements(BACKFILL_DIR);
    expect(fill).toContain(`INSERT INTO ${PRODUCT_ROLLUP.table}\n${select}`);
  });
});

describe('backfillTarget', () => {
  it('names the table an INSERT ... SELECT fills, and refuses anything else naming the file', async () => {
    expect(backfillTarget('f.sql', 'INSERT INTO events_by_time\nSELECT a FROM b')).toBe(
      'events_by_time',
    );
    expect(() => backfillTarget('f.sql', 'DROP TABLE events_clean')).toThrow(
      /f\.sql: expected every backfill statement to be INSERT INTO <table> SELECT/,
    );
    for (const f of await readDdlDir(BACKFILL_DIR))
      for (const s of f.statements) expect(() => backfillTarget(f.name, s)).not.toThrow();
  });
});

describe('assertIdentifier', () => {
  it('accepts plain names and rejects anything that could carry SQL', () => {
    expect(() => assertIdentifier('database', 'clickstream_t1')).not.toThrow();
    expect(() => assertIdentifier('database', 'a; DROP TABLE x')).toThrow(/not a plain identifier/);
    expect(() => assertIdentifier('table', '')).toThrow(RangeError);
  });
});
