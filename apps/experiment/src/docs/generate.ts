/** `tools/experiment docs`: reads results/experiments, writes the SVG plots next to the doc and the generated section of docs/MEASUREMENTS.md. */

import * as fs from 'fs';
import * as path from 'path';
import { CATALOGUE } from '../catalogue';
import type { TimelineRow } from '../timeline';
import { gatekeeperStallGoal, withGoalsSection, writeGoal } from './goals';
import { readDoc, writeDoc } from './write-doc';
import { faultSection, generatedSection, ladderSection, splice, type RunDoc } from './markdown';
import { freshnessSpec, ladderSpec, renderSvg, type AgePoint, type LadderPoint } from './plots';

/** Seconds of timeline around the fault in the plot. */
const PLOT_BEFORE_S = 40;
const PLOT_AFTER_S = 240;

interface ExperimentJson {
  status: string;
  error?: string;
  started_at: string;
  seed: number;
  settings: { rate?: number };
  git?: { commit: string | null };
  figures?: RunDoc['figures'];
  rungs?: RunDoc['rungs'];
  fault?: { injectedAtMs: number };
}

export function readRuns(
  resultsDir: string,
  repoRoot: string,
  name: string,
): { doc: RunDoc; json: ExperimentJson; abs: string }[] {
  const base = path.join(resultsDir, 'experiments', name);
  if (!fs.existsSync(base)) return [];
  return fs
    .readdirSync(base)
    .filter((d) => fs.existsSync(path.join(base, d, 'experiment.json')))
    .sort()
    .map((d) => {
      const abs = path.join(base, d);
      const json = JSON.parse(
        fs.readFileSync(path.join(abs, 'experiment.json'), 'utf8'),
      ) as ExperimentJson;
      const doc: RunDoc = {
        experiment: name,
        dir: path.relative(repoRoot, abs),
        startedAt: json.started_at.replace(/\.\d+Z$/, 'Z'),
        rate: json.settings.rate ?? null,
        seed: json.seed,
        commit: json.git?.commit ?? null,
        status: json.status,
        ...(json.error ? { error: json.error.split('\n')[0] as string } : {}),
        ...(json.figures ? { figures: json.figures } : {}),
        ...(json.rungs ? { rungs: json.rungs } : {}),
      };
      return { doc, json, abs };
    });
}

function readTimeline(dir: string): TimelineRow[] {
  const file = path.join(dir, 'timeline.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as TimelineRow);
}

/** The age points of one run, seconds relative to its fault. */
export function agePoints(rows: readonly TimelineRow[], faultS: number, run: string): AgePoint[] {
  const out: AgePoint[] = [];
  for (const r of rows) {
    const s = r.t - faultS;
    if (s < -PLOT_BEFORE_S || s > PLOT_AFTER_S) continue;
    for (const [layer, age] of Object.entries(r.age_s))
      if (age !== null) out.push({ s, age, layer, run });
  }
  return out;
}

export async function generateDocs(o: {
  resultsDir: string;
  repoRoot: string;
  docsFile: string;
}): Promise<{ sections: number; plots: string[] }> {
  const docDir = path.dirname(o.docsFile);
  const plotDir = path.join(docDir, 'experiments');
  fs.mkdirSync(plotDir, { recursive: true });
  const sections: string[] = [];
  const missing: string[] = [];
  const plots: string[] = [];
  const allRuns: RunDoc[] = [];
  for (const e of CATALOGUE) {
    const runs = readRuns(o.resultsDir, o.repoRoot, e.name);
    allRuns.push(...runs.map((r) => r.doc));
    if (runs.length === 0) {
      missing.push(e.name);
      continue;
    }
    const plotFile = path.join(plotDir, `${e.name}.svg`);
    let spec;
    if (e.kind === 'ladder') {
      const points: LadderPoint[] = runs.flatMap(({ doc }) =>
        (doc.rungs ?? []).flatMap((g) =>
          Object.entries(g.freshness)
            .filter(([, q]) => q.p99 !== null)
            .map(([layer, q]) => ({
              rate: g.rate,
              p99: q.p99 as number,
              layer,
              run: doc.startedAt,
            })),
        ),
      );
      spec = points.length > 0 ? ladderSpec(`${e.name}: freshness p99 per rung`, points) : null;
    } else {
      // The three latest finished runs, so that the plot stays readable.
      const points = runs
        .filter((r) => r.json.fault && r.json.status === 'done')
        .slice(-3)
        .flatMap((r) =>
          agePoints(
            readTimeline(r.abs),
            Math.floor((r.json.fault as { injectedAtMs: number }).injectedAtMs / 1000),
            r.doc.startedAt,
          ),
        );
      spec =
        points.length > 0
          ? freshnessSpec(`${e.name}: probe age per layer around the fault`, points)
          : null;
    }
    let rel: string | null = null;
    if (spec) {
      fs.writeFileSync(plotFile, await renderSvg(spec));
      plots.push(plotFile);
      rel = path.relative(docDir, plotFile);
    }
    const docs = runs.map((r) => r.doc);
    sections.push(
      e.kind === 'ladder' ? ladderSection(e.name, docs, rel) : faultSection(e.name, docs, rel),
    );
  }
  const goalsFile = path.join(o.resultsDir, 'bench', 'goals.json');
  const stall = gatekeeperStallGoal(allRuns);
  if (stall) writeGoal(goalsFile, 'gatekeeper_stall_max_s', stall);
  // Both generated sections in one write (and one Prettier run over the doc).
  const doc = splice(readDoc(o.docsFile), generatedSection(sections, missing));
  writeDoc(o.docsFile, withGoalsSection(doc, goalsFile));
  return { sections: sections.length, plots };
}
