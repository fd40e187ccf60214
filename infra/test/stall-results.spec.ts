/**
 * tools/lib/stall_results.py, what tools/stall-experiment measures by: the page and resolution lines
 * it finds in the pager's notifications, and `summary`, the markdown table of the stored runs. On
 * hand-written results in a temporary repository root; no stack.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from './support/stack';

const SCRIPT = path.join(REPO_ROOT, 'tools/lib/stall_results.py');
/** 2026-12-01T02:00:00Z */
const T = Date.UTC(2026, 11, 1, 2, 0, 0);

const note = (ms: number, alerts: [string, 'firing' | 'resolved', string?][]) =>
  JSON.stringify({
    received_ms: ms,
    status: alerts.every(([, s]) => s === 'resolved') ? 'resolved' : 'firing',
    alerts: alerts.map(([name, status, severity]) => ({
      alertname: name,
      status,
      severity: severity ?? 'page',
      labels: { alertname: name, layer: 'clean' },
    })),
  });

let root: string;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

function py(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('python3', [SCRIPT, ...args], { encoding: 'utf8' });
}

/** The table's rows as trimmed cells (header and separator included). */
function cells(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'stall-results-'));
  write('results/pages/pages.jsonl', '');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function run(id: string, stoppedAt: number, stallMs: number): void {
  write(
    `results/experiments/stall/${id}.json`,
    JSON.stringify({
      component: id.split('-')[1],
      run_id: id,
      probe_age_before_s: { valid: 1.5, clean: 6.25 },
      stopped_at: stoppedAt,
      continued_at: stoppedAt + stallMs,
      stall_ms: stallMs,
      reconcile_report: `results/runs/${id}/reconcile.json`,
    }),
  );
}

describe('stall_results.py summary', () => {
  it('prints only the header when no run is stored', () => {
    const r = py('summary', root);
    expect(r.status).toBe(0);
    expect(cells(r.stdout)).toHaveLength(2);
    expect(cells(r.stdout)[0]).toEqual([
      'component',
      'SIGSTOP (UTC)',
      'probe age before (valid / clean)',
      'first page line',
      'SIGSTOP to page',
      'stall',
      'SIGCONT to every page resolved',
      'run reconciled',
    ]);
  });

  it('measures the first page and the resolution of every page alert that fired, and reads the verdict', () => {
    run('stall-gatekeeper-20261201T020000Z', T, 20_000);
    write(
      'results/pages/pages.jsonl',
      [
        note(T - 5_000, [['ProbeStalled', 'firing']]), // before the freeze: not this run's page
        note(T + 10_000, [['SomethingSlow', 'firing', 'warning']]), // not a page
        note(T + 18_450, [['ProbeStalled', 'firing']]),
        'a line cut by a concurrent append',
        note(T + 19_000, [['FreshnessBudgetSlowBurn', 'firing']]),
        note(T + 40_000, [['ProbeStalled', 'resolved']]), // the slow burn still fires
        note(T + 170_049, [['FreshnessBudgetSlowBurn', 'resolved']]),
      ].join('\n') + '\n',
    );
    write(
      'results/runs/stall-gatekeeper-20261201T020000Z/reconcile.json',
      JSON.stringify({
        verdict: 'inexact',
        layers: [
          { layer: 'clickstream.raw', expected: 87_962, verdict: 'exact' },
          { layer: 'agg.windows', expected: 69, verdict: 'inexact' },
        ],
      }),
    );
    const r = py('summary', root);
    expect(r.stderr).toBe('');
    const table = cells(r.stdout);
    expect(table[0]?.[7]).toBe('run reconciled (2 layers)');
    expect(table[2]).toEqual([
      'gatekeeper',
      '02:00:00',
      '1.5 s / 6.25 s',
      'ProbeStalled(clean)',
      '18.5 s',
      '20.0 s',
      '150.0 s',
      'inexact (1/2 exact; raw 87,962)',
    ]);
    // Columns are padded to one width, as prettier formats a markdown table.
    expect(
      new Set(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => l.length),
      ).size,
    ).toBe(1);
  });

  it('falls back to the stored reconcile-wait output, and leaves out runs before --since', () => {
    run('stall-taskmanager-20261130T230000Z', T - 3 * 3_600_000, 15_000);
    run('stall-broker-20261201T021000Z', T + 600_000, 15_000);
    write(
      'results/experiments/stall/stall-broker-20261201T021000Z.reconcile.txt',
      [
        'layer             expected  observed  missing  dup  unexpected  differing  verdict',
        '---------------  --------  --------  -------  ---  ----------  ---------  -------',
        'clickstream.raw      1000       999        1    0           0          -    inexact',
        '',
        'run stall-broker-20261201T021000Z: inexact (1 layer(s), ledger 1000 row(s))',
        'layer             expected  observed  missing  dup  unexpected  differing  verdict',
        '---------------  --------  --------  -------  ---  ----------  ---------  -------',
        'clickstream.raw      1000      1000        0    0           0          -    exact',
        'events.valid          990       990        0    0           0          0    exact',
        '',
        'run stall-broker-20261201T021000Z: exact (2 layer(s), ledger 1000 row(s))',
        '[02:40:27] every layer exact after 137 s of catch-up (2 reconciliations)',
      ].join('\n'),
    );
    const r = py('summary', root, '--since', '2026-12-01');
    const table = cells(r.stdout);
    expect(table).toHaveLength(3);
    expect(table[2]).toEqual([
      'broker',
      '02:10:00',
      '1.5 s / 6.25 s',
      'no page',
      '-',
      '15.0 s',
      '-',
      'exact (2/2 exact; raw 1,000)',
    ]);
    // Without --since both days are listed, so the time carries its date.
    const all = cells(py('summary', root).stdout);
    expect(all.map((row) => row[1])).toEqual([
      'SIGSTOP (UTC)',
      expect.stringMatching(/^-+$/),
      '2026-12-01 02:10:00',
      '2026-11-30 23:00:00',
    ]);
    expect(all[3]?.[7]).toBe('not reconciled');
  });

  it('names a bad --since value and what it expects', () => {
    const r = py('summary', root, '--since', 'yesterday');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--since 'yesterday' is invalid: expected a UTC date or time/);
  });
});

describe('stall_results.py find (what the live experiment waits for)', () => {
  it('prints the first firing page after the freeze, and nothing before it resolves', () => {
    write(
      'results/pages/pages.jsonl',
      [note(T + 1_000, [['ProbeStalled', 'firing']]), note(T + 9_000, [['Other', 'firing']])].join(
        '\n',
      ),
    );
    const pages = path.join(root, 'results/pages/pages.jsonl');
    expect(py('find', pages, String(T), 'firing', String(T)).stdout).toBe(
      `${T + 1_000} ProbeStalled\n`,
    );
    expect(py('find', pages, String(T + 2_000), 'resolved', String(T)).stdout).toBe('');
  });
});
