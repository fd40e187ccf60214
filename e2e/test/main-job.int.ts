/**
 * The main job end to end: a seeded run of at least 20,000 events with every fault kind goes
 * through the real stack and pipeline, and the reconciler finds every layer exact. The DLQ reason
 * of every poison record is checked against the ledger here as well, and every reason of the
 * closed list must arrive. The seed is printed; E2E_SEED=<n> runs the same plan again.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  FAULT_KINDS,
  HEADERS,
  REJECT_REASONS,
  ReconciliationReportSchema,
  TOPICS,
} from '@clickstream/contracts';
import { readTopic } from '@clickstream/kafka-tx';
import { LEDGER_FILE, readLedgerSync } from '@clickstream/ledger';
import { clusterOptions, localPort, readRunWithPyiceberg } from '@clickstream/test-support';

const root = path.resolve(__dirname, '../..');
const run = (cmd: string, args: string[]): string =>
  execFileSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

/** A SQL client that is not ours: clickhouse-client over ClickHouse's native protocol; the numbers of the one row a query returns. */
function clickhouseClient(query: string): number[] {
  const out = run('clickhouse-client', [
    '--host',
    '127.0.0.1',
    '--port',
    String(localPort('CLICKHOUSE_TCP_PORT')),
    '--database',
    'clickstream',
    '--query',
    `${query} FORMAT TabSeparated`,
  ]);
  return out.trim().split('\t').map(Number);
}

/** E2E_SEED when set (a non-negative integer), else a fresh one; printed either way so a failure can be rerun. */
function seedOf(env: string | undefined): number {
  if (env === undefined || env === '') return randomInt(1000, 1_001_000);
  if (!/^(0|[1-9][0-9]{0,15})$/.test(env))
    throw new Error(`E2E_SEED: got ${JSON.stringify(env)}; expected a non-negative integer`);
  return Number(env);
}

describe('main job', () => {
  beforeAll(() => {
    run('bash', ['infra/local/stack.sh', 'up']);
    run('bash', ['tools/pipeline', 'up']);
  });

  it('counts a 20,000-event seeded run with every fault kind exact at every layer', async () => {
    const seed = String(seedOf(process.env.E2E_SEED));
    process.stdout.write(`e2e: generator seed ${seed} (rerun with E2E_SEED=${seed})\n`);
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

    // Readers that are not ours see the same run. A SQL client over the native protocol: one row per
    // distinct valid event in the clean table with FINAL, and the final windows' counts add up to
    // the events on time. pyiceberg, from the table's directory: one row per distinct valid event.
    const expected = (layer: string): number =>
      report.layers.find((l) => l.layer === layer)?.expected ?? -1;
    if (!/^[A-Za-z0-9_.-]+$/.test(summary.run_id)) throw new Error(`run id ${summary.run_id}`);
    const where = `WHERE run_id = '${summary.run_id}'`;
    expect(
      clickhouseClient(`SELECT count(), uniqExact(event_id) FROM events_clean FINAL ${where}`),
    ).toEqual([expected('clickhouse.clean'), expected('clickhouse.clean')]);
    expect(
      clickhouseClient(`SELECT count(), sum(event_count) FROM agg_windows FINAL ${where}`),
    ).toEqual([
      expected('clickhouse.agg_windows'),
      expected('clickhouse.clean') - expected('events.late'),
    ]);
    const iceberg = await readRunWithPyiceberg(
      '.run/iceberg/warehouse/clickstream/events_clean',
      summary.run_id,
    );
    // (Not its pruning: a table from before the run_id partitioning, as on a reused machine, still
    // holds unpartitioned files whose run_id bounds span any new run; clean.int.ts checks it.)
    expect([iceberg.rowCount, iceberg.distinctEventIds]).toEqual([
      expected('iceberg.clean'),
      expected('iceberg.clean'),
    ]);

    // Every poison send of the ledger is on the DLQ once, with the reason the ledger expects;
    // every reason of the closed list arrives.
    const ledger = readLedgerSync(path.join(root, runDir, LEDGER_FILE));
    const dead = await readTopic({
      ...clusterOptions(`e2e-dlq-${summary.run_id}`),
      topic: TOPICS.dlq,
      isolation: 'read_committed',
    });
    const reasons = new Map<number, string[]>();
    for (const r of dead) {
      if (r.headers[HEADERS.runId]?.toString() !== summary.run_id) continue;
      const seq = Number(r.headers[HEADERS.seq]?.toString());
      reasons.set(seq, [...(reasons.get(seq) ?? []), r.headers[HEADERS.reason]?.toString() ?? '']);
    }
    const poison = ledger.filter(
      (row) => row.expected_fate === 'poison' && row.delivery === 'acked',
    );
    const wrong = poison
      .filter((row) => (reasons.get(row.seq) ?? []).join() !== row.expected_reason)
      .map((row) => ({ seq: row.seq, expected: row.expected_reason, dlq: reasons.get(row.seq) }));
    expect(wrong).toEqual([]);
    expect(reasons.size).toBe(poison.length);
    expect([...new Set([...reasons.values()].flat())].sort()).toEqual([...REJECT_REASONS].sort());
  });
});
