/**
 * results/bench/goals.json, the current figure of each goal of issue #16: the one writer of that file
 * (`tools/experiment docs` for the stall, `tools/experiment goal` for the bash benchmarks' figures).
 */

import * as fs from 'fs';
import * as path from 'path';
import { splice, type RunDoc } from './markdown';
import { readDoc, writeDoc } from './write-doc';

/** The goals of issue #16, one key each (a closed list: a misspelt key is refused, not written). */
export const GOAL_KEYS = [
  'sustained_events_per_s',
  'freshness_p99_s_at_1000',
  'freshness_p99_s_at_6000',
  'reconcile_2_7m_s',
  'gatekeeper_stall_max_s',
  'idle_cpu_share',
] as const;
export type GoalKey = (typeof GOAL_KEYS)[number];

/** The goal: the gatekeeper's stall after a coordinator kill, in every one of 5 runs. */
export const STALL_RUNS = 5;

/** What each goal asks, as issue #16's table states it: met when the figure is at least (or under) the target. */
export const GOAL_TARGETS: Record<
  GoalKey,
  { what: string; target: number; met: 'atLeast' | 'under'; unit: string }
> = {
  sustained_events_per_s: {
    what: 'sustained rate, 10 minutes, every layer exact, no layer falling behind',
    target: 6000,
    met: 'atLeast',
    unit: 'events/s',
  },
  freshness_p99_s_at_1000: {
    what: 'freshness p99 at 1,000 events/s, send to queryable in the ClickHouse clean table',
    target: 3,
    met: 'under',
    unit: 's',
  },
  freshness_p99_s_at_6000: {
    what: 'freshness p99 at 6,000 events/s',
    target: 5,
    met: 'under',
    unit: 's',
  },
  reconcile_2_7m_s: {
    what: 'reconciling 2.7 M events, every layer',
    target: 60,
    met: 'under',
    unit: 's wall',
  },
  gatekeeper_stall_max_s: {
    what: `gatekeeper stall after a coordinator kill, worst of ${STALL_RUNS} runs`,
    target: 10,
    met: 'under',
    unit: 's',
  },
  idle_cpu_share: {
    what: 'CPU of the idle stack, share of the 2 cores',
    target: 0.05,
    met: 'under',
    unit: '',
  },
};

const STALL_EXPERIMENT = 'coordinator-kill';

export interface Goal {
  value: number;
  command: string;
  measured_at: string;
  /** What the value is taken over, when it is taken over several runs. */
  runs?: string[];
}

/**
 * `gatekeeper_stall_max_s`: the longest gatekeeper pause (seconds) over the newest STALL_RUNS finished
 * coordinator-kill runs that have the figure; null when none has it.
 */
export function gatekeeperStallGoal(runs: readonly RunDoc[]): (Goal & { runs: string[] }) | null {
  const measured = runs
    .filter(
      (r) =>
        r.experiment === STALL_EXPERIMENT && typeof r.figures?.gatekeeper_pause_ms === 'number',
    )
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt))
    .slice(-STALL_RUNS);
  const newest = measured[measured.length - 1];
  if (!newest) return null;
  const worst = Math.max(...measured.map((r) => r.figures?.gatekeeper_pause_ms as number));
  return {
    value: Math.round(worst) / 1000,
    command: `tools/experiment ${STALL_EXPERIMENT} --repeat ${STALL_RUNS} && tools/experiment docs`,
    measured_at: newest.startedAt,
    runs: measured.map((r) => r.dir),
  };
}

/** Sets one key of goals.json, keeping the others, keys sorted. */
export function writeGoal(file: string, key: GoalKey, goal: Goal): void {
  const goals = readGoals(file);
  goals[key] = goal;
  const sorted = Object.fromEntries(Object.entries(goals).sort(([a], [b]) => a.localeCompare(b)));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
}

export const GOALS_BEGIN =
  '<!-- goals:begin (generated from results/bench/goals.json by tools/experiment goal and docs; edit apps/experiment, not this section) -->';
export const GOALS_END = '<!-- goals:end -->';

const figure = (key: GoalKey, v: number) =>
  key === 'idle_cpu_share'
    ? `${(v * 100).toFixed(1)} %`
    : `${v.toLocaleString('en-US', { maximumFractionDigits: 3 })} ${GOAL_TARGETS[key].unit}`;

/** The goals table of docs/MEASUREMENTS.md: each goal of issue #16, its newest figure, whether it is met (pure). */
export function goalsSection(goals: Partial<Record<string, Goal>>): string {
  const rows = GOAL_KEYS.map((key) => {
    const t = GOAL_TARGETS[key];
    const target = `${t.met === 'atLeast' ? '≥' : '<'} ${figure(key, t.target)}`;
    const g = goals[key];
    if (!g) return `| ${t.what} | ${target} | not measured | – | – | – |`;
    const met = t.met === 'atLeast' ? g.value >= t.target : g.value < t.target;
    return `| ${t.what} | ${target} | ${figure(key, g.value)} | ${met ? 'yes' : '**no**'} | ${g.measured_at} | \`${g.command}\` |`;
  });
  return [
    GOALS_BEGIN,
    '',
    '## Performance goals (issue #16): where they stand (generated)',
    '',
    'The newest figure of each goal, from `results/bench/goals.json`, which the command beside it wrote. Each figure is',
    'one measurement on the machine of that day (they differ by 20-30 % in speed); "Where the CPU goes" below has how',
    'each was taken and what was tried.',
    '',
    '| goal | target | figure | met | measured at (UTC) | command |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    GOALS_END,
  ].join('\n');
}

function readGoals(file: string): Record<string, Goal> {
  return fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Goal>)
    : {};
}

/** The doc with its goals table set from the goals file (appended when the doc has no such section). */
export function withGoalsSection(doc: string, goalsFile: string): string {
  return splice(doc, goalsSection(readGoals(goalsFile)), GOALS_BEGIN, GOALS_END);
}

/** Rewrites the goals table of the docs file from the goals file. */
export function refreshGoalsSection(goalsFile: string, docsFile: string): void {
  writeDoc(docsFile, withGoalsSection(readDoc(docsFile), goalsFile));
}
