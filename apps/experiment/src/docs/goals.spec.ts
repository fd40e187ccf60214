import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gatekeeperStallGoal, STALL_RUNS, writeGoal } from './goals';
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
