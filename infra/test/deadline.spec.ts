/**
 * tools/deadline, the wall-clock limit of every integration target: a suite that outlives it is
 * killed with everything it started, and fails loudly; one that ends in time keeps its exit code.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './support/stack';

const DEADLINE = path.join(REPO_ROOT, 'tools/deadline');

/** Running (a zombie waiting to be reaped by its new parent is dead already). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function aliveAfter(pid: number, ms: number): boolean {
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) spawnSync('sleep', ['0.2']);
  return alive(pid);
}

describe('tools/deadline', () => {
  it('kills a command that outlives its limit, with its children, and exits 124', () => {
    // A parent that never exits and a child it started, both printing their pids.
    const r = spawnSync(
      'bash',
      [DEADLINE, '2', '--', 'bash', '-c', 'sleep 300 & echo "child $!"; echo "parent $$"; wait'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status).toBe(124);
    expect(r.stderr).toMatch(/outlived its limit of 2 s/);
    expect(r.stderr).toMatch(/ERROR: deadline: FAILED: `bash -c .*` killed after 2 s/);
    const pids = [...r.stdout.matchAll(/(?:child|parent) (\d+)/g)].map((m) => Number(m[1]));
    expect(pids).toHaveLength(2);
    for (const p of pids) expect(aliveAfter(p, 10_000)).toBe(false);
  }, 60_000);

  it("passes a command's own exit code through when it ends in time", () => {
    expect(spawnSync('bash', [DEADLINE, '30', '--', 'bash', '-c', 'exit 7']).status).toBe(7);
    expect(spawnSync('bash', [DEADLINE, '30', '--', 'true']).status).toBe(0);
  });

  it('refuses a limit that is not whole seconds, naming it', () => {
    const r = spawnSync('bash', [DEADLINE, '10m', '--', 'true'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/'10m': expected the limit in whole seconds/);
  });

  it('is the wrapper of every integration target', () => {
    const r = spawnSync('git', ['ls-files', '*project.json'], { cwd: REPO_ROOT, encoding: 'utf8' });
    const withIntegration: string[] = [];
    for (const f of r.stdout.trim().split('\n')) {
      const project = JSON.parse(readFileSync(path.join(REPO_ROOT, f), 'utf8')) as {
        targets?: Record<string, { options?: { command?: string } }>;
      };
      const cmd = project.targets?.['integration']?.options?.command;
      if (cmd === undefined) continue;
      withIntegration.push(f);
      expect([f, cmd]).toEqual([
        f,
        expect.stringMatching(/^({workspaceRoot}\/)?tools\/deadline \d+ -- /),
      ]);
    }
    expect(withIntegration.length).toBeGreaterThan(5);
  });
});
