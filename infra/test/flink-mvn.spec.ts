/**
 * infra/flink/mvn.sh: the Flink jobs' Maven build runs offline first and goes online only when the offline run lacked
 * a download, without showing the offline run's expected ERROR lines (on a fresh machine they read as a failure in
 * the demo's log). A real failure is shown as it is and not run twice. A stand-in `mvn` on PATH plays Maven: it logs
 * each call and answers offline calls as the test says.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from './support/stack';

const OFFLINE_MISSING = [
  '[ERROR] Plugin org.apache.maven.plugins:maven-resources-plugin:3.3.1 or one of its dependencies could not be',
  ' resolved: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact',
  ' org.apache.maven.plugins:maven-resources-plugin:jar:3.3.1 has not been downloaded from it before.',
].join('');

type Offline = { rc: number; out: string };

function run(offline: Offline, args: string[]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'flink-mvn-'));
  try {
    const calls = path.join(dir, 'calls');
    const fake = [
      '#!/usr/bin/env bash',
      `echo "$*" >> ${calls}`,
      `if [[ " $* " == *" -o "* ]]; then printf '\\033[0m%s\\n' '${offline.out}'; exit ${offline.rc}; fi`,
      "printf 'online build done\\n'",
    ].join('\n');
    writeFileSync(path.join(dir, 'mvn'), `${fake}\n`, { mode: 0o755 });
    const r = spawnSync('bash', ['infra/flink/mvn.sh', ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
      timeout: 30_000,
    });
    const made = readFileSync(calls, 'utf8').trim().split('\n');
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, calls: made };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('infra/flink/mvn.sh', () => {
  it('builds offline when ~/.m2 has everything, and does not go online', () => {
    const r = run({ rc: 0, out: 'offline build done' }, ['-DskipTests', 'package']);
    expect(r.status).toBe(0);
    expect(r.calls).toHaveLength(1);
    expect(r.calls[0]).toContain(' -o ');
    expect(r.calls[0]).toMatch(/-DskipTests package$/);
    expect(r.stdout).toBe('offline build done\n'); // the colour reset is dropped
  });

  it('goes online in one quiet line when the offline run lacked a download', () => {
    const r = run({ rc: 1, out: OFFLINE_MISSING }, ['test']);
    expect(r.status).toBe(0);
    expect(r.calls).toHaveLength(2);
    expect(r.calls[1]).not.toContain(' -o ');
    expect(r.stdout).toBe('online build done\n');
    expect(r.stderr).toBe(
      'infra/flink/mvn.sh: org.apache.maven.plugins:maven-resources-plugin:jar:3.3.1 is not yet in ~/.m2; ' +
        'running mvn test online\n',
    );
  });

  it('shows any other offline failure and exits with its code, without running the build again', () => {
    const r = run({ rc: 7, out: '[ERROR] Tests run: 3, Failures: 1' }, ['test']);
    expect(r.status).toBe(7);
    expect(r.calls).toHaveLength(1);
    expect(r.stderr).toContain('[ERROR] Tests run: 3, Failures: 1');
    expect(r.stderr).toContain('failed offline (exit 7), not for want of a download');
  });
});
