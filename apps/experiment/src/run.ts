/** One run of a fault experiment: steady seeded load, the fault at a set time, recovery, a reconcile of every layer, then the files and figures. */

import * as fs from 'fs';
import * as path from 'path';
import { spawn, execFile, type ChildProcess } from 'child_process';
import { promisify } from 'util';
import type { FaultExperiment } from './catalogue';
import { runFault, type FaultRecord, type StackDeps } from './faults';
import {
  buildTimeline,
  computeFigures,
  summariseReport,
  type ReconcileSummary,
  type RunFigures,
} from './figures';
import { readSends } from './ledger-sends';
import { pageFigure, pagesWithin } from './pages';
import { ageByLayer, freshnessHistograms } from './prometheus';
import { describeEnvironment } from './environment';

const exec = promisify(execFile);

export interface RunDeps extends StackDeps {
  resultsDir: string;
  /** PromQL label matchers of the shared pipeline's probe (other engineers may run probes of their own). */
  probeSelector: string;
  /** Where the pager writes pages.jsonl. */
  pagesFile: string;
  /** Set while a fault is in, so that an interrupt restores it; the main module calls it on SIGINT/SIGTERM. */
  setPendingRestore: (restore: (() => Promise<void>) | null) => void;
  setChild: (child: ChildProcess | null) => void;
  /** The run's gatekeeper stamps (ingest_time) in events_valid, ascending. */
  ingestTimes: (runId: string) => Promise<number[]>;
}

export interface RunSettings {
  experiment: FaultExperiment;
  seed: number;
  repeat: number;
  of: number;
}

export function utcStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/**
 * Sends awaiting their delivery report, at most: half a second of load. The ledger has send times, not
 * ack times; with so little in flight the generator waits as soon as acks stop, so a stall of the
 * acks shows as the same gap in acked send times (the write pause), not hidden behind a deep buffer.
 */
export function maxInFlight(rate: number): number {
  return Math.max(100, Math.ceil(rate / 2));
}

/** Starts the seeded generator; it runs until SIGTERM (it then flushes and writes its ledger) or `maxS`. */
export function startLoad(
  deps: RunDeps,
  o: { runId: string; seed: number; rate: number; maxS: number; logFile: string },
): { child: ChildProcess; exited: Promise<number> } {
  const log = fs.openSync(o.logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      path.join(deps.repoRoot, 'apps/generator/dist/main.js'),
      '--seed',
      String(o.seed),
      '--run-id',
      o.runId,
      '--rate',
      String(o.rate),
      '--duration',
      `${o.maxS}s`,
      '--max-in-flight',
      String(maxInFlight(o.rate)),
      '--results-dir',
      deps.resultsDir,
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  deps.setChild(child);
  const exited = new Promise<number>((resolve) =>
    child.on('exit', (code, signal) => {
      deps.setChild(null);
      resolve(code ?? (signal ? 128 : 1));
    }),
  );
  return { child, exited };
}

/** tools/reconcile-wait, bounded; its output goes to `outFile`; returns its exit code and the report it left. */
export async function reconcile(
  deps: RunDeps,
  runDir: string,
  maxS: number,
  outFile: string,
): Promise<{ exit: number; report: unknown }> {
  let exit = 0;
  let out = '';
  try {
    const r = await exec(path.join(deps.repoRoot, 'tools/reconcile-wait'), [runDir, String(maxS)], {
      cwd: deps.repoRoot,
      timeout: (maxS + 300) * 1000,
      maxBuffer: 64 * 1024 * 1024,
    });
    out = r.stdout + r.stderr;
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    exit = typeof e.code === 'number' ? e.code : 70;
    out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
  fs.writeFileSync(outFile, out);
  const reportFile = path.join(runDir, 'reconcile.json');
  const report: unknown = fs.existsSync(reportFile)
    ? JSON.parse(fs.readFileSync(reportFile, 'utf8'))
    : null;
  return { exit, report };
}

export interface RunResult {
  dir: string;
  figures: RunFigures;
}

/** Prometheus samples each layer's histogram and age every few seconds; the last samples need a moment to land. */
const SCRAPE_SLACK_MS = 20_000;

export async function runFaultExperiment(deps: RunDeps, s: RunSettings): Promise<RunResult> {
  const e = s.experiment;
  const startedMs = Date.now();
  const stamp = utcStamp(startedMs);
  const dir = path.join(deps.resultsDir, 'experiments', e.name, stamp);
  fs.mkdirSync(dir, { recursive: true });
  const runId = `exp-${e.name}-${stamp}`;
  const runDir = path.join(deps.resultsDir, 'runs', runId);
  const env = await describeEnvironment(deps.repoRoot);
  const meta = {
    experiment: e.name,
    kind: e.kind,
    summary: e.summary,
    settings: e,
    generator_max_in_flight: maxInFlight(e.rate),
    seed: s.seed,
    repeat: s.repeat,
    of: s.of,
    run_id: runId,
    run_dir: path.relative(deps.repoRoot, runDir),
    started_at: new Date(startedMs).toISOString(),
    ...env,
  };
  const write = (extra: Record<string, unknown>) =>
    fs.writeFileSync(
      path.join(dir, 'experiment.json'),
      `${JSON.stringify({ ...meta, ...extra }, null, 2)}\n`,
    );
  write({ status: 'running' });
  deps.log('experiment run', {
    name: e.name,
    repeat: `${s.repeat}/${s.of}`,
    dir: path.relative(deps.repoRoot, dir),
    run_id: runId,
  });

  // The generator stops on SIGTERM once recovery has been watched; maxS only bounds a forgotten run.
  const maxS = e.baselineS + e.fault.holdS + e.afterS + 900;
  const load = startLoad(deps, {
    runId,
    seed: s.seed,
    rate: e.rate,
    maxS,
    logFile: path.join(dir, 'generator.log'),
  });
  const loadStartMs = Date.now();
  let fault: FaultRecord | null = null;
  let generatorExit = -1;
  try {
    await deps.sleep(e.baselineS * 1000);
    fault = await runFault(deps, e.fault, deps.setPendingRestore);
    await deps.sleep(e.afterS * 1000);
  } catch (err) {
    write({ status: 'failed', error: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    load.child.kill('SIGTERM');
    generatorExit = await load.exited;
  }
  const loadEndMs = Date.now();
  deps.log('load stopped; reconciling', { generator_exit: generatorExit, max_s: e.reconcileS });
  const rec = await reconcile(deps, runDir, e.reconcileS, path.join(dir, 'reconcile.txt'));
  if (rec.report !== null)
    fs.writeFileSync(path.join(dir, 'reconcile.json'), `${JSON.stringify(rec.report, null, 2)}\n`);
  await deps.sleep(Math.max(0, SCRAPE_SLACK_MS - (Date.now() - loadEndMs)));
  const endMs = Date.now();

  const fromS = Math.floor(loadStartMs / 1000);
  const toS = Math.floor(endMs / 1000);
  const [sends, ages, histograms, ingestMs] = await Promise.all([
    readSends(runDir),
    ageByLayer(deps.prom, fromS, toS, deps.probeSelector),
    freshnessHistograms(deps.prom, fromS, toS, deps.probeSelector),
    deps.ingestTimes(runId).catch((err: unknown) => {
      deps.log('gatekeeper stamps not read', { error: String(err) });
      return null;
    }),
  ]);
  const timeline = buildTimeline(sends.ackedMs, ages, fromS, toS);
  fs.writeFileSync(
    path.join(dir, 'timeline.jsonl'),
    timeline.map((r) => JSON.stringify(r)).join('\n') + '\n',
  );
  const pagesLines = fs.existsSync(deps.pagesFile)
    ? fs.readFileSync(deps.pagesFile, 'utf8').split('\n')
    : [];
  const runPages = pagesWithin(pagesLines, loadStartMs, endMs);
  fs.writeFileSync(
    path.join(dir, 'pages.jsonl'),
    runPages.length > 0 ? `${runPages.join('\n')}\n` : '',
  );
  const f = fault as FaultRecord;
  const reconcileSummary: ReconcileSummary | null =
    rec.report === null
      ? null
      : summariseReport(rec.report as Parameters<typeof summariseReport>[0]);
  const figures = computeFigures({
    ackedMs: sends.ackedMs,
    timeline,
    histograms,
    loadStartS: fromS,
    loadEndS: Math.floor(loadEndMs / 1000),
    faultAtMs: f.injectedAtMs,
    restoredAtMs: f.restoredAtMs ?? f.injectedAtMs,
    ingestMs,
    page: pageFigure(pagesLines, f.injectedAtMs, f.restoredAtMs ?? f.injectedAtMs, endMs),
    reconcile: reconcileSummary,
  });
  write({
    status: 'done',
    load: {
      started_at_ms: loadStartMs,
      ended_at_ms: loadEndMs,
      generator_exit: generatorExit,
      sends: sends.total,
      acked: sends.ackedMs.length,
      failed: sends.failed,
    },
    fault: f,
    reconcile_exit: rec.exit,
    ended_at: new Date(endMs).toISOString(),
    figures,
  });
  deps.log('experiment run done', {
    name: e.name,
    verdict: figures.reconcile?.verdict ?? 'no report',
    write_pause_ms: figures.write_pause_ms,
    gatekeeper_pause_ms: figures.gatekeeper_pause_ms,
    back_under_slo_s: figures.back_under_slo_s,
    to_page_ms: figures.page.toPageMs,
  });
  return { dir, figures };
}
