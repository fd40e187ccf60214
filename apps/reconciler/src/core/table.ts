/** Renders a report as a readable fixed-width table for the terminal. */

import type { ReconciliationReport } from '@clickstream/contracts';

const COLUMNS = [
  'layer',
  'expected',
  'observed',
  'missing',
  'dup',
  'unexpected',
  'differing',
  'verdict',
] as const;

export function renderTable(report: ReconciliationReport): string {
  const rows: string[][] = report.layers.map((l) => [
    l.layer,
    String(l.expected),
    String(l.observed),
    String(l.missing.count),
    String(l.duplicated.count),
    String(l.unexpected.count),
    l.differing === null ? '-' : String(l.differing.count),
    l.verdict,
  ]);
  const widths = COLUMNS.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  const out = [line(COLUMNS), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  out.push(
    '',
    `run ${report.run_id}: ${report.verdict} (${report.layers.length} layer(s), ledger ${report.ledger_rows} row(s))`,
  );
  for (const l of report.layers) {
    for (const n of l.notes) out.push(`  ${l.layer}: ${n}`);
    if (l.verdict !== 'exact') {
      for (const [name, ev] of [
        ['missing', l.missing],
        ['duplicated', l.duplicated],
        ['unexpected', l.unexpected],
        ['differing', l.differing],
      ] as const) {
        if (ev !== null && ev.count > 0)
          out.push(`  ${l.layer}: ${name} e.g. ${JSON.stringify(ev.examples.slice(0, 3))}`);
      }
    }
  }
  return out.join('\n');
}
