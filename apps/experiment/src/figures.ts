/** The figures of one fault run, from its timeline, the probe's histograms, the ledger, the pages and the reconciliation: a pure function. */

import { SLO_S } from './catalogue';
import type { PageFigure } from './pages';
import {
  ackedPerSecond,
  backUnderSlo,
  maxAge,
  phaseQuantiles,
  writePause,
  type HistogramSeries,
  type Phase,
  type PhaseQuantiles,
  type TimelineRow,
} from './timeline';

/** Seconds of load skipped at the start of "before" (the producer connecting, the probe's first events). */
export const WARMUP_S = 10;

export interface ReconcileSummary {
  verdict: string;
  layers: Record<string, string>;
  /** Per inexact layer: missing, duplicated, unexpected counts (the reconciler's evidence is in reconcile.json). */
  evidence: Record<
    string,
    { missing: number; duplicated: number; unexpected: number; differing: number | null }
  >;
}

export interface RunFigures {
  write_pause_ms: number | null;
  /** Where the pause began, ms relative to the fault (negative: before it). */
  write_pause_from_fault_ms: number | null;
  /**
   * The longest gap between consecutive gatekeeper stamps (ingest_time) of the run's valid rows: a
   * time in which the gatekeeper committed none of the run's events. Null when they were not read
   * (absent in runs made before this figure existed).
   */
  gatekeeper_pause_ms?: number | null;
  gatekeeper_pause_from_fault_ms?: number | null;
  acked_sends: number;
  phases: Phase[];
  freshness: Record<string, PhaseQuantiles>;
  /** Seconds from the restoration until every layer's age is back under the SLO for 15 s. */
  back_under_slo_s: number | null;
  max_age_during: { ageS: number; layer: string } | null;
  page: PageFigure;
  reconcile: ReconcileSummary | null;
}

/** Joins acked sends per second and per-layer ages into timeline rows, one per second of [fromS, toS). */
export function buildTimeline(
  ackedMs: ArrayLike<number>,
  ages: ReadonlyMap<string, ReadonlyMap<number, number>>,
  fromS: number,
  toS: number,
): TimelineRow[] {
  const acked = ackedPerSecond(ackedMs, fromS, toS);
  const rows: TimelineRow[] = [];
  for (let t = fromS; t < toS; t++) {
    const age_s: Record<string, number | null> = {};
    for (const [layer, series] of ages) age_s[layer] = series.get(t) ?? null;
    rows.push({ t, acked: acked[t - fromS] as number, age_s });
  }
  return rows;
}

/** The shortest "during": probe events sent around a quick fault are seen up to tens of seconds later. */
export const MIN_DURING_S = 30;

export function phasesOf(
  loadStartS: number,
  faultS: number,
  restoredS: number,
  recoveredS: number | null,
  endS: number,
): Phase[] {
  const duringEnd = Math.min(endS, Math.max(restoredS, recoveredS ?? endS, faultS + MIN_DURING_S));
  return [
    { name: 'before', fromS: Math.min(faultS, loadStartS + WARMUP_S), toS: faultS },
    { name: 'during', fromS: faultS, toS: duringEnd },
    { name: 'after', fromS: duringEnd, toS: endS },
  ];
}

export interface FigureInputs {
  ackedMs: ArrayLike<number>;
  timeline: readonly TimelineRow[];
  histograms: ReadonlyMap<string, HistogramSeries>;
  loadStartS: number;
  loadEndS: number;
  faultAtMs: number;
  restoredAtMs: number;
  /** The run's ingest_time stamps in the valid table (null: could not be read). */
  ingestMs: ArrayLike<number> | null;
  page: PageFigure;
  reconcile: ReconcileSummary | null;
}

export function computeFigures(i: FigureInputs): RunFigures {
  const faultS = Math.floor(i.faultAtMs / 1000);
  const restoredS = Math.ceil(i.restoredAtMs / 1000);
  const back = backUnderSlo(i.timeline, restoredS, SLO_S);
  const phases = phasesOf(
    i.loadStartS,
    faultS,
    restoredS,
    back === null ? null : restoredS + back,
    i.loadEndS,
  );
  const freshness: Record<string, PhaseQuantiles> = {};
  for (const [layer, series] of i.histograms) freshness[layer] = phaseQuantiles(series, phases);
  const pause = writePause(i.ackedMs);
  const gatekeeperPause = i.ingestMs ? writePause(i.ingestMs) : null;
  const during = phases[1] as Phase;
  const worst = maxAge(i.timeline, during.fromS, Math.max(during.toS, during.fromS + 1));
  return {
    write_pause_ms: pause?.gapMs ?? null,
    write_pause_from_fault_ms: pause ? pause.fromMs - i.faultAtMs : null,
    gatekeeper_pause_ms: gatekeeperPause?.gapMs ?? null,
    gatekeeper_pause_from_fault_ms: gatekeeperPause ? gatekeeperPause.fromMs - i.faultAtMs : null,
    acked_sends: i.ackedMs.length,
    phases,
    freshness,
    back_under_slo_s: back,
    max_age_during: worst ? { ageS: worst.ageS, layer: worst.layer } : null,
    page: i.page,
    reconcile: i.reconcile,
  };
}

interface ReportLike {
  verdict: string;
  layers: {
    layer: string;
    verdict: string;
    missing: { count: number };
    duplicated: { count: number };
    unexpected: { count: number };
    differing: { count: number } | null;
  }[];
}

export function summariseReport(report: ReportLike): ReconcileSummary {
  const layers: Record<string, string> = {};
  const evidence: ReconcileSummary['evidence'] = {};
  for (const l of report.layers) {
    layers[l.layer] = l.verdict;
    if (l.verdict !== 'exact')
      evidence[l.layer] = {
        missing: l.missing.count,
        duplicated: l.duplicated.count,
        unexpected: l.unexpected.count,
        differing: l.differing?.count ?? null,
      };
  }
  return { verdict: report.verdict, layers, evidence };
}
