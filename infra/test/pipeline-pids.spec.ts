/**
 * tools/pipeline's pid files: a file left behind by an earlier boot or a killed session may name a
 * pid that something else runs by now. The pipeline must neither take that process for the app's
 * supervisor (a start once skipped the gatekeeper as "already running" and the run's events were
 * never validated) nor signal it on `down`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './support/stack';

const PIPELINE = path.join(REPO_ROOT, 'tools/pipeline');
const INSTANCE = `pids-spec-${process.pid}`;
const APPS_DIR = path.join(REPO_ROOT, '.run', `apps-${INSTANCE}`);
const APPS = ['gatekeeper', 'loader', 'pager', 'collector', 'probe'];

function pipeline(...args: string[]) {
  return spawnSync('bash', [PIPELINE, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    // An instance's own directory and ports (nothing listens there): the shared pipeline is not touched.
    env: { ...process.env, PIPELINE_INSTANCE: INSTANCE, PIPELINE_PORT_BASE: '47100' },
  });
}

describe('tools/pipeline pid files', () => {
  let stranger: ChildProcess;

  beforeEach(() => {
    // A process that is not a supervisor, as a reused pid would be.
    stranger = spawn('sleep', ['120'], { stdio: 'ignore' });
    mkdirSync(APPS_DIR, { recursive: true });
    for (const a of APPS) writeFileSync(path.join(APPS_DIR, `${a}.pid`), `${stranger.pid}\n`);
  });

  afterEach(() => {
    stranger.kill('SIGKILL');
    rmSync(APPS_DIR, { recursive: true, force: true });
  });

  it('status shows an app whose pid file names another process as down', () => {
    const r = pipeline('status');
    const rows = r.stdout.split('\n').filter((l) => APPS.includes(l.split(/\s+/)[0] ?? ''));
    expect(rows).toHaveLength(APPS.length);
    for (const row of rows) expect(row.split(/\s+/).slice(1, 2)).toEqual(['-']);
    for (const row of rows) expect(row).toMatch(/\sdown$/);
  });

  it('down leaves that process alone and removes the stale files', () => {
    const r = pipeline('down');
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/stopped/);
    expect(stranger.exitCode).toBeNull();
    expect(stranger.signalCode).toBeNull();
    expect(spawnSync('kill', ['-0', String(stranger.pid)]).status).toBe(0);
    const left = spawnSync('ls', [APPS_DIR], { encoding: 'utf8' }).stdout.trim();
    expect(left).toBe('');
  });
});

// /proc/N exists for a thread id too (ls /proc does not list it). A stale pid file whose number had
// become a thread of a running broker once passed as a live TaskManager, and `stack.sh up` waited
// 90 s for a TaskManager it never started.
describe('proc.sh pid_from_file', () => {
  const file = path.join(REPO_ROOT, '.run', `pid-from-file-spec-${process.pid}.pid`);
  afterEach(() => rmSync(file, { force: true }));

  function pidFromFile(pid: number): string {
    writeFileSync(file, `${pid}\n`);
    const r = spawnSync(
      'bash',
      [
        '-c',
        'source tools/lib/common.sh && source infra/local/lib/proc.sh && pid_from_file "$1" node',
        'pid-from-file',
        file,
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout;
  }

  it('takes a live process whose command line matches, and never a thread of one', () => {
    const threads = readdirSync(`/proc/${process.pid}/task`)
      .map(Number)
      .filter((tid) => tid !== process.pid);
    expect(threads.length).toBeGreaterThan(0); // node always runs helper threads
    expect(pidFromFile(process.pid)).toBe(String(process.pid));
    for (const tid of threads) expect(pidFromFile(tid)).toBe('');
  });
});
