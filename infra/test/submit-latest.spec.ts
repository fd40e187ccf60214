/**
 * infra/flink/submit.sh's choice of the checkpoint to resume from, on a checkpoint directory with many retained
 * checkpoints: a long-lived stack keeps three per job id it ever ran, and a listing longer than a pipe's buffer once
 * made the pipeline fail with SIGPIPE (exit 141) under pipefail, so that submit.sh failed after submitting.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runSubmitFunction } from './support/submit';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'submit-latest-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Runs submit.sh's latest_checkpoint for job name `name` under pipefail, with CHECKPOINT_ROOT at `root`. */
function latest(name: string) {
  return runSubmitFunction(
    'latest_checkpoint',
    { CHECKPOINT_ROOT: root },
    [name],
    ['completed_checkpoints'],
  );
}

describe('submit.sh latest_checkpoint', () => {
  it('finds the newest of thousands of retained checkpoints, and succeeds', () => {
    const base = Date.now() / 1000 - 100_000;
    let newest = '';
    for (let job = 0; job < 700; job++) {
      for (let n = 0; n < 3; n++) {
        const dir = path.join(
          root,
          'windows',
          `${job.toString(16).padStart(32, '0')}`,
          `chk-${n + 1}`,
        );
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, '_metadata'), '');
        const t = base + job * 10 + n;
        utimesSync(path.join(dir, '_metadata'), t, t);
        newest = dir;
      }
    }
    const r = latest('windows');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(newest);
  });

  it('prints nothing for a job without checkpoints', () => {
    const r = latest('clean');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
  });
});
