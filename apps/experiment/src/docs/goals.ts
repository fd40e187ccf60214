/**
 * results/bench/goals.json, the current figure of each goal of issue #16: the one writer of that file
 * (`tools/experiment docs` for the stall, `tools/experiment goal` for the bash benchmarks' figures).
 */

import * as fs from 'fs';
import * as path from 'path';
import type { RunDoc } from './markdown';

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
  const goals = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>)
    : {};
  goals[key] = goal;
  const sorted = Object.fromEntries(Object.entries(goals).sort(([a], [b]) => a.localeCompare(b)));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
}
