/**
 * The collector's load benchmark (not part of `npm test`): autocannon against the running
 * collector (tools/pipeline up), every request a JSON array of fresh, contract-valid events
 * (unique event ids, one bench run id), and every 2xx is an acknowledgement by Kafka. Reports
 * requests/s and events/s against p50/p99 latency; then, optionally, a seeded generator run
 * through HTTP at --gen-rate for the reconciler (`tools/reconcile-wait <run-dir>`).
 *
 * Usage: npx nx run collector:bench -- [--url U] [--connections C] [--duration S] [--batch B] [--gen-rate R] [--gen-duration S] [--reconcile MAX_S] [--label L]
 * --duration 0 skips autocannon; --reconcile MAX_S (with --gen-rate) then runs tools/reconcile-wait
 * on the generator's run for up to MAX_S seconds and keeps its per-layer verdicts in the result.
 * Writes results/bench/collector-<time>.json (autocannon's raw result included).
 */

import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import autocannon from 'autocannon';
import { asJson, pageViews } from './sample-event';

const ROOT = path.resolve(__dirname, '../../../..');

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const url = flag('url', 'http://127.0.0.1:9404/v1/events');
const connections = Number(flag('connections', '16'));
const duration = Number(flag('duration', '20'));
const batch = Number(flag('batch', '50'));
const genRate = Number(flag('gen-rate', '0'));
const genDuration = flag('gen-duration', '20s');
const reconcileMaxS = Number(flag('reconcile', '0'));
/** Names what was measured (e.g. the collector's commit when comparing builds). */
const label = flag('label', '');
const runId = `bench-collector-${Date.now()}`;
const event = pageViews(runId);

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/** The 1-, 5- and 15-minute load averages when the run ended (the machine is shared). */
function loadAverage(): number[] {
  return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
}

function load(): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify(Array.from({ length: batch }, () => asJson(event()))),
        }),
      },
    ],
  });
}

function summarise(result: autocannon.Result) {
  const ok = result['2xx'];
  return {
    label,
    url,
    connections,
    duration_s: duration,
    events_per_request: batch,
    requests_2xx: ok,
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    requests_per_s: Number((ok / result.duration).toFixed(1)),
    events_per_s: Number(((ok * batch) / result.duration).toFixed(1)),
    latency_ms: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
  };
}

async function main(): Promise<void> {
  const started = new Date().toISOString();
  const result = duration > 0 ? await load() : null;
  const summary = result === null ? null : summarise(result);
  if (summary !== null) process.stdout.write(`${JSON.stringify({ autocannon: summary })}\n`);

  let generator: unknown = null;
  if (genRate > 0) {
    // Its summary is the last stdout line whatever its exit (a run that fell behind still has a ledger).
    const g = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'apps/generator/dist/main.js'),
        '--via',
        'http',
        '--collector-url',
        url,
        '--rate',
        String(genRate),
        '--duration',
        genDuration,
        '--max-dup-delay',
        '15s',
        '--seed',
        String(Date.now() % 100000),
      ],
      {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const out = g.stdout;
    generator = JSON.parse(out.trim().split('\n').pop() as string);
    process.stdout.write(`${JSON.stringify({ generator })}\n`);
  }

  // Every layer counted against the generator's ledger: the verdict that goes beside the figures.
  let reconcile: unknown = null;
  const manifest = (generator as { manifest?: string } | null)?.manifest;
  if (reconcileMaxS > 0 && manifest !== undefined) {
    const runDir = path.dirname(manifest);
    const t0 = Date.now();
    const r = spawnSync(path.join(ROOT, 'tools/reconcile-wait'), [runDir, String(reconcileMaxS)], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    process.stdout.write(r.stdout);
    const report = JSON.parse(fs.readFileSync(path.join(runDir, 'reconcile.json'), 'utf8')) as {
      layers: { layer: string; verdict: string }[];
    };
    reconcile = {
      exit: r.status,
      seconds: Math.round((Date.now() - t0) / 1000),
      report: path.relative(ROOT, path.join(runDir, 'reconcile.json')),
      verdicts: Object.fromEntries(report.layers.map((l) => [l.layer, l.verdict])),
    };
    process.stdout.write(`${JSON.stringify({ reconcile })}\n`);
  }

  const file = path.join(ROOT, 'results/bench', `collector-${started.replace(/[:.]/g, '-')}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `${JSON.stringify({ started, command: process.argv.slice(2), commit: gitCommit(), loadavg: loadAverage(), run_id: runId, summary, generator, reconcile, autocannon: result }, null, 2)}\n`,
  );
  process.stdout.write(`wrote ${path.relative(ROOT, file)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `collector bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
