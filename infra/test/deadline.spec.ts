/**
 * tools/deadline, the wall-clock limit of every integration target: a suite that outlives it is
 * killed with everything it started, and fails loudly; one that ends in time keeps its exit code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
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

  describe('a command that crashes', () => {
    let dir = '';
    beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'deadline-crash-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** Runs deadline from `dir` on a bash that kills itself with SIGSEGV on its first `crashes` runs. */
    function crashing(crashes: number): ReturnType<typeof spawnSync> & { stderr: string } {
      const script = `n=$(cat runs 2>/dev/null || echo 0); echo $((n + 1)) > runs; ((n < ${crashes})) && kill -SEGV $$; echo "ran $((n + 1))"`;
      return spawnSync('bash', [DEADLINE, '30', '--', 'bash', '-c', script], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, DEADLINE_OUT_DIR: path.join(dir, 'out') },
      });
    }

    it('is run once more, loudly, and the second exit code is the result', () => {
      const r = crashing(1);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/ran 2/);
      expect(r.stderr).toMatch(/was killed by SIGSEGV after \d+ s/);
      expect(r.stderr).toMatch(/running `bash -c .*` once more after its crash \(SIGSEGV\)/);
      expect(r.stderr).toMatch(/passed on its second attempt; the first crashed with SIGSEGV/);
    }, 120_000);

    it('fails with the signal when it crashes again, and is not run a third time', () => {
      const r = crashing(5);
      expect(r.status).toBe(139);
      expect(readFileSync(path.join(dir, 'runs'), 'utf8').trim()).toBe('2');
      expect(r.stderr).not.toMatch(/passed on its second attempt/);
    }, 120_000);

    // This machine's kind writes cores as "core" in the crashed process's cwd and has gdb.
    const plainCores = /^core/.test(readFileSync('/proc/sys/kernel/core_pattern', 'utf8'));
    (plainCores && spawnSync('gdb', ['--version']).status === 0 ? it : it.skip)(
      "keeps the core and writes the crashed thread's backtrace",
      () => {
        const r = crashing(1);
        expect(r.stderr).toMatch(/the crashed thread:\n#0 .*kill/);
        const out = readdirSync(path.join(dir, 'out'));
        expect(out.filter((f) => f.startsWith('core-'))).toHaveLength(1);
        const trace = out.find((f) => f.endsWith('-crash.txt')) ?? '';
        expect(readFileSync(path.join(dir, 'out', trace), 'utf8')).toMatch(/kill_builtin/);
        expect(existsSync(path.join(dir, 'core'))).toBe(false);
      },
      120_000,
    );
  });

  it('refuses a limit that is not whole seconds, naming it', () => {
    const r = spawnSync('bash', [DEADLINE, '10m', '--', 'true'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/'10m': expected the limit in whole seconds/);
  });

  it('is the wrapper of every integration target, at a path that exists from its cwd', () => {
    const r = spawnSync('git', ['ls-files', '*project.json'], { cwd: REPO_ROOT, encoding: 'utf8' });
    const withIntegration: string[] = [];
    for (const f of r.stdout.trim().split('\n')) {
      const project = JSON.parse(readFileSync(path.join(REPO_ROOT, f), 'utf8')) as {
        targets?: Record<string, { options?: { command?: string; cwd?: string } }>;
      };
      const options = project.targets?.['integration']?.options;
      const cmd = options?.command;
      if (cmd === undefined) continue;
      withIntegration.push(f);
      expect([f, cmd]).toEqual([f, expect.stringMatching(/^\S*tools\/deadline \d+ -- /)]);
      // Nx substitutes {workspaceRoot} with "" at the start of a command, so the wrapper is
      // named by a path relative to the target's cwd, which must lead to it.
      const cwd = (options?.cwd ?? '{workspaceRoot}')
        .replace('{projectRoot}', path.dirname(f))
        .replace('{workspaceRoot}', '.');
      const wrapper = cmd.split(' ')[0] as string;
      expect([f, existsSync(path.resolve(REPO_ROOT, cwd, wrapper))]).toEqual([f, true]);
    }
    expect(withIntegration.length).toBeGreaterThan(5);
  });
});
