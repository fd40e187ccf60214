/**
 * The windows job in the production pipeline (generator -> gatekeeper -> clean -> windows -> loader), judged by the
 * reconciler: a seeded run with every fault kind and a TaskManager SIGKILL in the middle, then a second run sent while
 * the windows job is stopped for about 60 s and resumed from its retained checkpoint (a catch-up that reads the
 * partitions of events.clean out of order, with late events right after the restore). events.late, agg.windows,
 * agg.sessions and their ClickHouse tables must be exact for both runs.
 */

import { execFileSync, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ReconciliationReportSchema } from '@clickstream/contracts';
import { killTaskManager } from './faults';
import { repoRoot, sleep } from './harness';

const root = repoRoot();
const TIMED_LAYERS = [
  'events.late',
  'agg.windows',
  'agg.sessions',
  'clickhouse.events_late',
  'clickhouse.agg_windows',
  'clickhouse.agg_sessions',
];

function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 900000,
    // A restore right after a TaskManager restart on the loaded 2-core machine can deploy for minutes.
    env: { ...process.env, FLINK_WAIT_RUNNING: '600' },
  });
}

/** Runs the generator; resolves to its run id once it has sent everything. */
function generate(seed: number, duration: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'node',
      [
        'apps/generator/dist/main.js',
        '--seed',
        String(seed),
        '--rate',
        '300',
        '--duration',
        duration,
        '--max-dup-delay',
        '15s',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`generator exited with ${code}: ${out}`));
      const summary = JSON.parse(out) as { run_id: string; failed: number };
      resolve(summary.run_id);
    });
  });
}

/** Reconciles with tools/reconcile-wait; returns every layer's verdict. */
function reconcile(runId: string): Record<string, string> {
  const runDir = path.join('results', 'runs', runId);
  const wait = spawnSync('bash', ['tools/reconcile-wait', runDir, '420'], {
    cwd: root,
    encoding: 'utf8',
  });
  process.stdout.write(wait.stdout);
  const report = ReconciliationReportSchema.parse(
    JSON.parse(fs.readFileSync(path.join(root, runDir, 'reconcile.json'), 'utf8')),
  );
  return Object.fromEntries(report.layers.map((l) => [l.layer, l.verdict]));
}

const timed = (verdicts: Record<string, string>): Record<string, string | undefined> =>
  Object.fromEntries(TIMED_LAYERS.map((l) => [l, verdicts[l]]));
const allExact = Object.fromEntries(TIMED_LAYERS.map((l) => [l, 'exact']));

beforeAll(() => {
  sh('bash', ['infra/local/stack.sh', 'up']);
  sh('bash', ['tools/pipeline', 'up']);
});

afterAll(() => {
  // Leave a TaskManager and a running windows job for everybody else, whatever happened.
  sh('bash', ['infra/local/stack.sh', 'up']);
  sh('bash', ['infra/flink/submit.sh', 'windows']);
});

test('a TaskManager SIGKILL and a 60 s stop of the windows job: the six timed layers stay exact', async () => {
  // Run A, with the TaskManager SIGKILLed 12-18 s into it and restarted.
  const runA = generate(1000 + Math.floor(Math.random() * 1_000_000), '40s');
  await sleep(12_000 + Math.floor(Math.random() * 6000));
  await killTaskManager();
  const runIdA = await runA;

  // Run B, sent while the windows job is stopped; resumed from its retained checkpoint about 60 s after the stop.
  sh('bash', ['infra/flink/submit.sh', '--cancel', 'windows']);
  const stoppedAt = Date.now();
  const runIdB = await generate(1000 + Math.floor(Math.random() * 1_000_000), '30s');
  await sleep(Math.max(0, 60_000 - (Date.now() - stoppedAt)));
  sh('bash', ['infra/flink/submit.sh', 'windows']);

  expect(timed(reconcile(runIdA))).toEqual(allExact);
  expect(timed(reconcile(runIdB))).toEqual(allExact);
  // Reconciling reads every topic of the shared stack: on a busy machine one pass can take minutes.
}, 1_800_000);
