/** Parsing helpers over the zod schemas, so every team validates ledgers, manifests and reports the same way and gets the same errors. */

import type { z } from 'zod';
import { LedgerRowSchema, type LedgerRow } from './ledger/ledger';
import { RunManifestSchema, type RunManifest } from './ledger/manifest';
import { ReconciliationReportSchema, type ReconciliationReport } from './report/report';

/** A bad row is an outcome to count and report, not an exception. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** One line per issue: the dotted key path, then zod's message (at most 5 issues). */
export function formatZodError(error: z.ZodError): string {
  const lines = error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
  if (error.issues.length > 5) lines.push(`... and ${error.issues.length - 5} more`);
  return lines.join('; ');
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, what: string): ParseResult<T> {
  const result = schema.safeParse(value);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, error: `invalid ${what}: ${formatZodError(result.error)}` };
}

function parseJson(text: string, what: string): ParseResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return {
      ok: false,
      error: `invalid ${what}: not JSON (${err instanceof Error ? err.message : String(err)})`,
    };
  }
}

export function parseLedgerRow(value: unknown): ParseResult<LedgerRow> {
  return parseWith(LedgerRowSchema, value, 'ledger row');
}

/** One line of a JSON-lines ledger file. */
export function parseLedgerLine(line: string): ParseResult<LedgerRow> {
  const json = parseJson(line, 'ledger row');
  return json.ok ? parseLedgerRow(json.value) : json;
}

export function parseRunManifest(value: unknown): ParseResult<RunManifest> {
  return parseWith(RunManifestSchema, value, 'run manifest');
}

export function parseReport(value: unknown): ParseResult<ReconciliationReport> {
  return parseWith(ReconciliationReportSchema, value, 'reconciliation report');
}
