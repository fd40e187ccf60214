/**
 * The main job end to end: a seeded run of at least 20,000 events with every fault kind goes
 * through the real stack and pipeline, and the reconciler finds every layer exact.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FAULT_KINDS, ReconciliationReportSchema } from '@clickstream/contracts';

const root = path.resolve(__dirname, '../..');
const run = (cmd: string, args: string[]): string =>
  execFileSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

describe('main job', () => {
  beforeAll(() => {
    run('bash', ['infra/local/stack.sh', 'up']);
    run('bash', ['tools/pipeline', 'up']);
  });

  it('counts a 20,000-event seeded run with every fault kind exact at every layer', () => {
    const seed = String(1000 + Math.floor(Math.random() * 1_000_000));
    const summary = JSON.parse(
      run('node', [
        'apps/generator/dist/main.js',
        '--seed',
        seed,
        '--rate',
        '1000',
        '--count',
        '20000',
        '--max-dup-delay',
        '15s',
      ]),
    ) as { run_id: string; acked: number; failed: number; by_fault: Record<string, number> };
    expect(summary.acked).toBeGreaterThanOrEqual(20_000);
    for (const kind of FAULT_KINDS) expect(summary.by_fault[kind] ?? 0).toBeGreaterThan(0);

    const runDir = path.join('results', 'runs', summary.run_id);
    const wait = spawnSync('bash', ['tools/reconcile-wait', runDir, '600'], {
      cwd: root,
      encoding: 'utf8',
    });
    process.stdout.write(wait.stdout);
    const report = ReconciliationReportSchema.parse(
      JSON.parse(readFileSync(path.join(root, runDir, 'reconcile.json'), 'utf8')),
    );
    const verdicts = Object.fromEntries(report.layers.map((l) => [l.layer, l.verdict]));
    expect(verdicts).toEqual({
      'clickstream.raw': 'exact',
      'events.valid': 'exact',
      'events.dlq': 'exact',
      'events.clean': 'exact',
      'clickhouse.valid': 'exact',
      'clickhouse.clean': 'exact',
      'clickhouse.dlq': 'exact',
      'iceberg.clean': 'exact',
      'events.late': 'exact',
      'agg.windows': 'exact',
      'agg.sessions': 'exact',
      'clickhouse.events_late': 'exact',
      'clickhouse.agg_windows': 'exact',
      'clickhouse.agg_sessions': 'exact',
    });
    expect(report.verdict).toBe('exact');
    expect(wait.status).toBe(0);
  });
});
