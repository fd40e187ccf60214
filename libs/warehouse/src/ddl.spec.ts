import { assertIdentifier, DDL_DIR, readDdlDir, splitStatements } from './ddl';

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
    ]);
    for (const f of files) {
      expect(f.statements.length).toBeGreaterThan(0);
      for (const s of f.statements) {
        expect(s).toMatch(/^CREATE TABLE IF NOT EXISTS [a-z_]+\s/);
        // Features newer than 18.16 must not creep in.
        expect(s).not.toMatch(/DateTime64|LowCardinality|TTL|CODEC/);
      }
    }
  });
});

describe('assertIdentifier', () => {
  it('accepts plain names and rejects anything that could carry SQL', () => {
    expect(() => assertIdentifier('database', 'clickstream_t1')).not.toThrow();
    expect(() => assertIdentifier('database', 'a; DROP TABLE x')).toThrow(/not a plain identifier/);
    expect(() => assertIdentifier('table', '')).toThrow(RangeError);
  });
});
