/** Reading DDL files: one or more statements per `*.sql` file, applied in file-name order. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Splits a SQL script into statements on `;` outside quotes, dropping `--` comment lines and blanks. */
export function splitStatements(script: string): string[] {
  const text = script
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n');
  const statements: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quote !== null) {
      current += c;
      if (c === '\\' && i + 1 < text.length) current += text[++i] as string;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') {
      quote = c;
      current += c;
    } else if (c === ';') {
      if (current.trim()) statements.push(current.trim());
      current = '';
    } else {
      current += c;
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}

export interface DdlFile {
  name: string;
  statements: string[];
}

/** The `*.sql` files of a directory in name order (001_..., 002_...), split into statements. */
export async function readDdlDir(dir: string): Promise<DdlFile[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.sql')).sort();
  const files: DdlFile[] = [];
  for (const name of names) {
    files.push({ name, statements: splitStatements(await readFile(join(dir, name), 'utf8')) });
  }
  return files;
}

/** The table a backfill statement fills (`INSERT INTO <table>\nSELECT ...`); throws naming the file otherwise. */
export function backfillTarget(file: string, statement: string): string {
  const table = /^INSERT INTO ([A-Za-z_][A-Za-z0-9_]*)\s+SELECT\s/.exec(statement)?.[1];
  if (table === undefined)
    throw new RangeError(
      `${file}: expected every backfill statement to be INSERT INTO <table> SELECT ..., got ${JSON.stringify(statement.slice(0, 60))}`,
    );
  return table;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Database and table names are interpolated into SQL, so only plain identifiers are accepted. */
export function assertIdentifier(kind: string, name: string): void {
  if (!IDENTIFIER.test(name))
    throw new RangeError(
      `${kind} ${JSON.stringify(name)} is not a plain identifier (expected ${IDENTIFIER.source})`,
    );
}

/** The repository's DDL directory (infra/clickhouse/ddl), resolved from this module in src/ or dist/. */
export const DDL_DIR = join(__dirname, '..', '..', '..', 'infra', 'clickhouse', 'ddl');

/**
 * One-off fills for a database that held rows before a view was created (a view sees only later
 * inserts): infra/clickhouse/backfill, `INSERT INTO <target> SELECT ...` statements that the loader
 * runs at start for each target that is empty (Warehouse.applyDdl); idempotent in their answers.
 */
export const BACKFILL_DIR = join(__dirname, '..', '..', '..', 'infra', 'clickhouse', 'backfill');
