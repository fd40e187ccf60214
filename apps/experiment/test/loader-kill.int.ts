/**
 * The harness end to end on the shared stack and pipeline: a short loader-kill experiment (300 events/s,
 * the loader SIGKILLed after 15 s; its supervisor restarts it) into a private results directory. Checks
 * what the harness promises: the run's files, a timeline that accounts for every acked send, the fault
 * restored (a new loader process), and a reconcile in which every layer is exact. Timings are written,
 * never asserted.
 */

import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@clickstream/test-support';

const run = promisify(execFile);
const ROOT = repoRoot();
const results = fs.mkdtempSync(path.join(os.tmpdir(), 'experiment-it-'));

function loaderPid(): number {
  const sup = fs.readFileSync(path.join(ROOT, '.run/apps/loader.pid'), 'utf8').trim();
  return Number(
    execFileSync('pgrep', ['-P', sup, '-f', 'apps/loader/dist/main.js'])
      .toString()
      .trim()
      .split('\n')[0],
  );
}

beforeAll(() => {
  // Idempotent: starts only what is missing of the shared pipeline (npm test has usually started it).
  execFileSync('bash', [path.join(ROOT, 'tools/pipeline'), 'up'], {
    stdio: 'ignore',
    timeout: 300_000,
  });
}, 320_000);

afterAll(() => fs.rmSync(results, { recursive: true, force: true }));

it('runs loader-kill: files written, every acked send on the timeline, the loader back, every layer exact', async () => {
  const before = loaderPid();
  let exit = 0;
  try {
    await run(
      path.join(ROOT, 'tools/experiment'),
      [
        'loader-kill',
        '--rate',
        '300',
        '--baseline',
        '15',
        '--after',
        '25',
        '--reconcile',
        '180',
        '--seed',
        '4242',
        '--results-dir',
        results,
      ],
      { cwd: ROOT, timeout: 400_000 },
    );
  } catch (err) {
    exit = (err as { code?: number }).code ?? -1;
  }
  const base = path.join(results, 'experiments', 'loader-kill');
  const [stamp] = fs.readdirSync(base);
  const dir = path.join(base, stamp as string);
  const experiment = JSON.parse(fs.readFileSync(path.join(dir, 'experiment.json'), 'utf8'));
  const reconcile = JSON.parse(fs.readFileSync(path.join(dir, 'reconcile.json'), 'utf8'));
  const timeline = fs
    .readFileSync(path.join(dir, 'timeline.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(
      (l) => JSON.parse(l) as { t: number; acked: number; age_s: Record<string, number | null> },
    );

  expect(experiment.status).toBe('done');
  expect(experiment.fault.pid).toBe(before);
  expect(loaderPid()).not.toBe(before);
  expect(experiment.fault.restoredAtMs).toBeGreaterThanOrEqual(experiment.fault.injectedAtMs);
  expect(experiment.load.acked).toBeGreaterThan(300 * 30);
  expect(timeline.reduce((s, r) => s + r.acked, 0)).toBe(experiment.load.acked);
  expect(Object.keys(timeline[0]?.age_s ?? {}).sort()).toEqual(['clean', 'valid', 'windows']);
  expect(experiment.figures.write_pause_ms).toBeGreaterThan(0);
  // The gatekeeper stamps of the run were read from events_valid (a loader kill does not stop it).
  expect(experiment.figures.gatekeeper_pause_ms).toBeGreaterThan(0);
  expect(experiment.figures.gatekeeper_pause_ms).toBeLessThan(30_000);
  expect(reconcile.layers.filter((l: { verdict: string }) => l.verdict !== 'exact')).toEqual([]);
  expect(experiment.figures.reconcile.verdict).toBe('exact');
  expect(exit).toBe(0);
});
