/**
 * stack.sh's wait_healthy (infra/local/lib/proc.sh): a component that dies while starting fails the start at once,
 * and one that is still starting is never taken for dead. For a moment after the start, while the new process execs
 * (setsid, nohup, setpriv, java), its /proc/N/cmdline reads empty or still as stack.sh's own; the check once read it
 * there and failed a `restart-node 3` whose broker came up a few seconds later (2026-12-07).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from './support/stack';

/** Runs wait_healthy for a component `c` whose pid file holds `pid`, with `check` as its health check. */
function waitHealthy(pidDir: string, pid: number | undefined, check: string, timeoutS = 2) {
  if (pid === undefined) throw new Error('the test process did not start');
  writeFileSync(path.join(pidDir, 'c.pid'), `${pid}\n`);
  const script = [
    'source tools/lib/common.sh',
    'source infra/local/lib/proc.sh',
    `PID_DIR=${pidDir}`,
    `wait_healthy c ${timeoutS} /dev/null ${check}`,
  ].join('; ');
  return spawnSync('bash', ['-c', script], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
}

describe('wait_healthy', () => {
  let pidDir: string;
  let starting: ChildProcess;

  beforeEach(() => {
    pidDir = mkdtempSync(path.join(tmpdir(), 'wait-healthy-'));
    // Alive, and its command line does not name the repository: a process caught between two execs.
    starting = spawn('sleep', ['60'], { stdio: 'ignore' });
  });

  afterEach(() => {
    starting.kill('SIGKILL');
    rmSync(pidDir, { recursive: true, force: true });
  });

  it('keeps waiting for a live process whose command line does not (yet) name the repository', () => {
    const r = waitHealthy(pidDir, starting.pid, 'false');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('c did not become healthy within 2s');
    expect(r.stderr).not.toContain('exited during start-up');
  });

  it('returns as soon as the health check passes', () => {
    const r = waitHealthy(pidDir, starting.pid, 'true');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('fails, naming the component, when the recorded process has exited (not at the timeout)', () => {
    const done = spawnSync('true');
    const r = waitHealthy(pidDir, done.pid, 'false', 20);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('c exited during start-up');
  });
});
