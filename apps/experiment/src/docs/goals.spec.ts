import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  gatekeeperStallGoal,
  GOALS_BEGIN,
  GOALS_END,
  goalsSection,
  refreshGoalsSection,
  STALL_RUNS,
  writeGoal,
} from './goals';
import type { RunDoc } from './markdown';

function run(experiment: string, startedAt: string, pauseMs: number | null | undefined): RunDoc {
  const figures = pauseMs === undefined ? {} : { gatekeeper_pause_ms: pauseMs };
  return {
    experiment,
    dir: `results/experiments/${experiment}/${startedAt}`,
    startedAt,
    rate: 500,
    seed: 1,
    commit: null,
    status: 'done',
    figures: figures as RunDoc['figures'],
  };
}

describe('gatekeeperStallGoal', () => {
  it('takes the worst pause of the newest five coordinator-kill runs that have the figure', () => {
    const runs = [
      run('coordinator-kill', '2026-12-01T01:00:00Z', 90_000), // older than the newest five: left out
      ...[1, 2, 3, 4, 5].map((i) =>
        run('coordinator-kill', `2026-12-01T0${i + 1}:00:00Z`, i * 1000),
      ),
      run('coordinator-kill', '2026-12-01T09:00:00Z', undefined), // made before the figure existed
      run('coordinator-kill', '2026-12-01T09:30:00Z', null), // stamps not read
      run('leader-kill', '2026-12-01T10:00:00Z', 60_000), // another experiment
    ];
    const goal = gatekeeperStallGoal(runs);
    expect(goal?.value).toBe(5);
    expect(goal?.runs).toHaveLength(STALL_RUNS);
    expect(goal?.runs[0]).toBe('results/experiments/coordinator-kill/2026-12-01T02:00:00Z');
    expect(goal?.measured_at).toBe('2026-12-01T06:00:00Z');
    expect(goal?.command).toContain('coordinator-kill --repeat 5');
  });

  it('is null without a measured coordinator-kill run', () => {
    expect(gatekeeperStallGoal([run('leader-kill', '2026-12-01T10:00:00Z', 1000)])).toBeNull();
  });
});

describe('writeGoal', () => {
  it('sets its key and keeps the others, sorted', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'goals-')), 'bench', 'goals.json');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, JSON.stringify({ z_other: { value: 1 } }));
    writeGoal(file, 'gatekeeper_stall_max_s', {
      value: 2.5,
      command: 'c',
      measured_at: 't',
      runs: ['r'],
    });
    const goals = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(Object.keys(goals)).toEqual(['gatekeeper_stall_max_s', 'z_other']);
    expect(goals.gatekeeper_stall_max_s.value).toBe(2.5);
  });
});

describe('goalsSection', () => {
  const at = (value: number) => ({
    value,
    command: `cmd ${value}`,
    measured_at: '2026-12-07T00:00:00Z',
  });

  it('says per goal whether its figure meets the target, in the direction the goal asks', () => {
    const md = goalsSection({
      sustained_events_per_s: at(6000), // at least 6,000: met at exactly 6,000
      freshness_p99_s_at_1000: at(3), // under 3 s: not met at exactly 3 s
      idle_cpu_share: at(0.1355),
    });
    const row = (what: string) => md.split('\n').find((l) => l.startsWith(`| ${what}`)) ?? '';
    expect(row('sustained rate')).toContain('| ≥ 6,000 events/s | 6,000 events/s | yes |');
    expect(row('freshness p99 at 1,000')).toContain('| < 3 s | 3 s | **no** |');
    expect(row('CPU of the idle stack')).toContain(
      '| < 5.0 % | 13.6 % | **no** | 2026-12-07T00:00:00Z | `cmd 0.1355` |',
    );
    expect(row('reconciling')).toContain('| not measured |');
    expect(md.startsWith(GOALS_BEGIN)).toBe(true);
    expect(md.endsWith(GOALS_END)).toBe(true);
  });
});

describe('refreshGoalsSection', () => {
  it('rewrites only its own section, formatted, and leaves the rest of the doc as it was', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goals-doc-'));
    const goalsFile = path.join(dir, 'goals.json');
    const docsFile = path.join(dir, 'M.md');
    fs.writeFileSync(
      goalsFile,
      JSON.stringify({ reconcile_2_7m_s: { value: 51, command: 'c', measured_at: 't' } }),
    );
    fs.writeFileSync(
      docsFile,
      `# M\n\nbefore\n\n${GOALS_BEGIN}\nstale table\n${GOALS_END}\n\n## After\n\nafter\n`,
    );
    refreshGoalsSection(goalsFile, docsFile);
    const doc = fs.readFileSync(docsFile, 'utf8');
    expect(doc).not.toContain('stale table');
    expect(doc.startsWith('# M\n\nbefore\n\n<!-- goals:begin')).toBe(true);
    expect(doc.endsWith('<!-- goals:end -->\n\n## After\n\nafter\n')).toBe(true);
    expect(doc).toMatch(
      /\| reconciling 2\.7 M events, every layer +\| < 60 s wall +\| 51 s wall +\| yes +\|/,
    );
    // Prettier's table layout: the separator row padded to the columns' widths, not the generated one.
    expect(doc).not.toContain('| --- | --- | --- | --- | --- | --- |');
  });
});
