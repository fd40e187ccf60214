/**
 * infra/flink/submit.sh's prune_runs: before a submission resumes job name N, the retained checkpoints of N's older
 * runs go, except the newest FLINK_KEEP_RUNS and any a kept checkpoint still refers to (a CLAIM-mode restore reads
 * its predecessor's files); a removed run's changelog files go with it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runSubmitFunction } from './support/submit';

let runDir: string;
let checkpoints: string;
beforeEach(() => {
  runDir = mkdtempSync(path.join(tmpdir(), 'submit-prune-'));
  checkpoints = path.join(runDir, 'flink/checkpoints');
});
afterEach(() => rmSync(runDir, { recursive: true, force: true }));

const jobId = (n: number) => n.toString(16).padStart(32, '0');
const base = Date.now() / 1000 - 100_000;

/** A run of job name `name` with job id `jobId(n)`: three checkpoints whose newest is `n` minutes after `base`, each with a 64 KB file; `metadata` is the newest checkpoint's _metadata. */
function run(name: string, n: number, metadata = 'handles of its own files') {
  for (let c = 1; c <= 3; c++) {
    const chk = path.join(checkpoints, name, jobId(n), `chk-${c}`);
    mkdirSync(chk, { recursive: true });
    writeFileSync(path.join(chk, '_metadata'), c === 3 ? metadata : '');
    writeFileSync(path.join(chk, 'state'), Buffer.alloc(65_536));
    const t = base + n * 60 + c;
    utimesSync(path.join(chk, '_metadata'), t, t);
  }
  writeFileSync(path.join(checkpoints, name, jobId(n), 'STATE_BACKEND'), 'rocksdb\n');
}
function changelog(n: number) {
  mkdirSync(path.join(runDir, 'flink/changelog', jobId(n), 'dstl'), { recursive: true });
}
const runs = (name: string, ...ns: number[]) =>
  ns.filter((n) => existsSync(path.join(checkpoints, name, jobId(n))));

function prune(name: string, env: Record<string, string> = {}) {
  return runSubmitFunction(
    'prune_runs',
    { RUN_DIR: runDir, CHECKPOINT_ROOT: checkpoints, ...env },
    [name],
    ['completed_checkpoints'],
  );
}

describe('submit.sh prune_runs', () => {
  it('keeps the three newest runs and removes the older ones with their changelog files', () => {
    for (const n of [1, 2, 3, 4, 5, 6]) run('clean', n);
    changelog(2);
    changelog(6);
    run('windows', 1);
    const r = prune('clean');
    expect(r.status).toBe(0);
    expect(runs('clean', 1, 2, 3, 4, 5, 6)).toEqual([4, 5, 6]);
    expect(existsSync(path.join(runDir, 'flink/changelog', jobId(2)))).toBe(false);
    expect(existsSync(path.join(runDir, 'flink/changelog', jobId(6)))).toBe(true);
    expect(runs('windows', 1)).toEqual([1]); // another job name is not touched
    expect(r.stderr).toMatch(
      /removed the retained checkpoints of 3 older run\(s\) of clean \(0 MB; FLINK_KEEP_RUNS=3, kept 3\)/,
    );
  });

  it('keeps an older run that a kept checkpoint names, by its files or its changelog', () => {
    for (const n of [1, 2, 3, 4, 5]) run('clean', n);
    for (const n of [1, 2]) changelog(n);
    // Run 5 was restored in CLAIM mode and still reads a file of run 3's and run 2's changelog.
    run(
      'clean',
      5,
      `\u0000file:${checkpoints}/clean/${jobId(3)}/shared/ab12\u0007file:${runDir}/flink/changelog/${jobId(2)}/dstl/x`,
    );
    const r = prune('clean', { FLINK_KEEP_RUNS: '2' });
    expect(r.status).toBe(0);
    expect(runs('clean', 1, 2, 3, 4, 5)).toEqual([2, 3, 4, 5]);
    expect(existsSync(path.join(runDir, 'flink/changelog', jobId(1)))).toBe(false);
    expect(existsSync(path.join(runDir, 'flink/changelog', jobId(2)))).toBe(true);
    expect(r.stderr).toMatch(
      /removed the retained checkpoints of 1 older run\(s\) of clean .*kept 4\)/,
    );
  });

  it('does nothing while there are no more runs than it keeps', () => {
    for (const n of [1, 2, 3]) run('clean', n);
    const r = prune('clean');
    expect(r.status).toBe(0);
    expect(runs('clean', 1, 2, 3)).toEqual([1, 2, 3]);
    expect(r.stderr).toBe('');
  });

  it('leaves what is not a job id directory alone', () => {
    for (const n of [1, 2, 3, 4]) run('clean', n);
    mkdirSync(path.join(checkpoints, 'clean', 'notes'));
    expect(prune('clean', { FLINK_KEEP_RUNS: '1' }).status).toBe(0);
    expect(runs('clean', 1, 2, 3, 4)).toEqual([4]);
    expect(existsSync(path.join(checkpoints, 'clean', 'notes'))).toBe(true);
  });

  it.each(['0', 'all', '-1'])('fails fast on FLINK_KEEP_RUNS=%s, removing nothing', (keep) => {
    for (const n of [1, 2, 3, 4]) run('clean', n);
    const r = prune('clean', { FLINK_KEEP_RUNS: keep });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`FLINK_KEEP_RUNS='${keep}': expected a whole number of at least 1`);
    expect(runs('clean', 1, 2, 3, 4)).toEqual([1, 2, 3, 4]);
  });
});
