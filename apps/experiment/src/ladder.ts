/** The load ladder: one seeded run per rate, each reconciled, until a layer falls behind (freshness p99 over the SLO) or is not exact. */

import * as fs from 'fs';
import * as path from 'path';
import { SLO_S, type LadderExperiment } from './catalogue';
import { describeEnvironment } from './environment';
import { buildTimeline, summariseReport, type ReconcileSummary } from './figures';
import { readSends } from './ledger-sends';
import { ageByLayer, freshnessHistograms } from './prometheus';
import { reconcile, startLoad, utcStamp, type RunDeps } from './run';
import { maxAge, phaseQuantiles, SLO_LAYERS, writePause } from './timeline';

export interface RungFigures {
  rate: number;
  run_id: string;
  acked_sends: number;
  achieved_rate: number;
  write_pause_ms: number | null;
  freshness: Record<string, { p50: number | null; p99: number | null }>;
  max_age_s: number | null;
  reconcile: ReconcileSummary | null;
  /** Why the ladder stopped here, or null if it went on. */
  stop: string | null;
}

/**
 * Why the ladder stops at this rung: a layer behind (p99 over the SLO, or no freshness at all) or
 * not exact. Only the SLO layers (valid, clean) are judged against the SLO, as in the fault runs:
 * the windows layer sits behind a second Flink job and is slower by design; its p99 is kept.
 */
export function stopReason(r: Pick<RungFigures, 'freshness' | 'reconcile'>): string | null {
  if (r.reconcile === null) return 'no reconciliation report';
  if (r.reconcile.verdict !== 'exact') {
    const bad = Object.entries(r.reconcile.layers).filter(([, v]) => v !== 'exact');
    return `not exact: ${bad.map(([l, v]) => `${l} ${v}`).join(', ')}`;
  }
  const judged = SLO_LAYERS.map((layer) => [layer, r.freshness[layer]] as const);
  const behind = judged.filter(([, q]) => q === undefined || q.p99 === null || q.p99 > SLO_S);
  if (behind.length > 0)
    return `behind: ${behind.map(([l, q]) => `${l} p99 ${q?.p99 ?? 'none'} s`).join(', ')} (SLO ${SLO_S} s)`;
  return null;
}

export async function runLadder(
  deps: RunDeps,
  e: LadderExperiment,
  seed: number,
  repeat: number,
  of: number,
): Promise<{ dir: string; rungs: RungFigures[] }> {
  const startedMs = Date.now();
  const stamp = utcStamp(startedMs);
  const dir = path.join(deps.resultsDir, 'experiments', e.name, stamp);
  fs.mkdirSync(dir, { recursive: true });
  const meta = {
    experiment: e.name,
    kind: e.kind,
    summary: e.summary,
    settings: e,
    seed,
    repeat,
    of,
    started_at: new Date(startedMs).toISOString(),
    ...(await describeEnvironment(deps.repoRoot)),
  };
  const rungs: RungFigures[] = [];
  const reports: { rate: number; report: unknown }[] = [];
  const timeline: unknown[] = [];
  const write = (status: string) =>
    fs.writeFileSync(
      path.join(dir, 'experiment.json'),
      `${JSON.stringify({ ...meta, status, rungs }, null, 2)}\n`,
    );
  write('running');
  for (const rate of e.rungs) {
    const runId = `exp-${e.name}-${stamp}-${rate}`;
    const runDir = path.join(deps.resultsDir, 'runs', runId);
    deps.log('ladder rung', { rate, seconds: e.rungS, run_id: runId });
    const load = startLoad(deps, {
      runId,
      seed: seed + rate,
      rate,
      maxS: e.rungS,
      logFile: path.join(dir, `generator-${rate}.log`),
    });
    const fromMs = Date.now();
    const exit = await load.exited;
    const toMs = Date.now();
    const rec = await reconcile(
      deps,
      runDir,
      e.reconcileS,
      path.join(dir, `reconcile-${rate}.txt`),
    );
    reports.push({ rate, report: rec.report });
    await deps.sleep(15_000);
    const fromS = Math.floor(fromMs / 1000);
    const toS = Math.floor(toMs / 1000);
    const [sends, ages, hist] = await Promise.all([
      readSends(runDir),
      ageByLayer(deps.prom, fromS, toS, deps.probeSelector),
      freshnessHistograms(deps.prom, fromS, toS, deps.probeSelector),
    ]);
    const rows = buildTimeline(sends.ackedMs, ages, fromS, toS);
    for (const r of rows) timeline.push({ ...r, rate });
    const freshness: RungFigures['freshness'] = {};
    // The first 10 s are the producer connecting: skip them as the fault runs do.
    const phase = { name: 'during' as const, fromS: Math.min(toS, fromS + 10), toS };
    for (const [layer, series] of hist) freshness[layer] = phaseQuantiles(series, [phase]).during;
    const rung: RungFigures = {
      rate,
      run_id: runId,
      acked_sends: sends.ackedMs.length,
      achieved_rate: Math.round(sends.ackedMs.length / Math.max(1, (toMs - fromMs) / 1000)),
      write_pause_ms: writePause(sends.ackedMs)?.gapMs ?? null,
      freshness,
      max_age_s: maxAge(rows, fromS, toS)?.ageS ?? null,
      reconcile:
        rec.report === null
          ? null
          : summariseReport(rec.report as Parameters<typeof summariseReport>[0]),
      stop: null,
    };
    rung.stop = exit !== 0 ? `generator exited ${exit}` : stopReason(rung);
    rungs.push(rung);
    write('running');
    deps.log('ladder rung done', {
      rate,
      achieved: rung.achieved_rate,
      verdict: rung.reconcile?.verdict,
      stop: rung.stop,
    });
    if (rung.stop !== null) break;
  }
  fs.writeFileSync(
    path.join(dir, 'timeline.jsonl'),
    timeline.map((r) => JSON.stringify(r)).join('\n') + '\n',
  );
  fs.writeFileSync(path.join(dir, 'reconcile.json'), `${JSON.stringify(reports, null, 2)}\n`);
  write('done');
  return { dir, rungs };
}
