/**
 * The set-up's "nothing installed yet" paths, with stub system commands first on PATH (no network,
 * no real apt): a bare machine must be detected as such and set up, never stop silently.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from './support/stack';

interface Machine {
  /** Packages dpkg knows as installed; every other name gets dpkg-query's bare-machine answer. */
  installed: string[];
  root: boolean;
}

interface Outcome {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The argument lines apt-get and pkill were called with. */
  aptCalls: string[];
  pkillCalls: string[];
}

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'setup-spec-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function stub(name: string, body: string): void {
  const file = path.join(dir, 'bin', name);
  writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(file, 0o755);
}

/** Runs `script` in bash after sourcing tools/setup, on a machine described by `m`. */
function onMachine(m: Machine, script: string): Outcome {
  spawnSync('mkdir', ['-p', path.join(dir, 'bin')]);
  const calls = path.join(dir, 'calls');
  // Like the real dpkg-query on a machine without the package: a line on stderr and exit 1.
  stub(
    'dpkg-query',
    `installed=" ${m.installed.join(' ')} "; rc=0
for a in "$@"; do
  case $a in -*) continue ;; esac
  if [[ $installed == *" $a "* ]]; then echo "$a installed"; else echo "dpkg-query: no packages found matching $a" >&2; rc=1; fi
done
exit $rc`,
  );
  stub('apt-get', `echo "apt-get $*" >>${calls}`);
  stub('pkill', `echo "pkill $*" >>${calls}; exit 1`);
  stub('service', `echo "service $*" >>${calls}`);
  stub(
    'id',
    `case "$*" in -u) echo ${m.root ? 0 : 1000} ;; -un) echo ${m.root ? 'root' : 'dev'} ;; *) exec /usr/bin/id "$@" ;; esac`,
  );
  const r = spawnSync('bash', ['-c', `set -euo pipefail; source tools/setup; ${script}`], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${path.join(dir, 'bin')}:${process.env['PATH'] ?? ''}`,
      SETUP_POLICY_RC_D: path.join(dir, 'policy-rc.d'),
    },
  });
  const lines = existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [];
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    aptCalls: lines.filter((l) => l.startsWith('apt-get')),
    pkillCalls: lines.filter((l) => l.startsWith('pkill') || l.startsWith('service')),
  };
}

describe('tools/setup on a bare machine', () => {
  it('reports every package missing and installs them, then carries on', () => {
    const o = onMachine({ installed: [], root: true }, 'install_apt; echo NEXT-STEP');
    expect(o.stderr).not.toMatch(/ERROR/);
    expect(o.status).toBe(0);
    expect(o.stdout).toMatch(/installing: clickhouse-server clickhouse-client prometheus/);
    expect(o.aptCalls[0]).toBe('apt-get update -q');
    expect(o.aptCalls[1]).toMatch(
      /^apt-get install -y -q --no-install-recommends clickhouse-server .* shellcheck( |$)/,
    );
    expect(o.stdout).toMatch(/NEXT-STEP/);
    // The policy-rc.d that keeps daemons from starting is removed again.
    expect(existsSync(path.join(dir, 'policy-rc.d'))).toBe(false);
  });

  it('installs only what is missing', () => {
    const o = onMachine(
      { installed: ['maven', 'curl', 'clickhouse-server'], root: true },
      'install_apt',
    );
    expect(o.status).toBe(0);
    expect(o.aptCalls[1]).toMatch(/clickhouse-client/);
    expect(o.aptCalls[1]).not.toMatch(/ maven |clickhouse-server| curl /);
  });

  it('does nothing when every package is there', () => {
    const all = spawnSync(
      'bash',
      ['-c', 'source tools/setup; printf "%s\\n" "${APT_PACKAGES[@]}"'],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      },
    )
      .stdout.trim()
      .split('\n');
    const o = onMachine({ installed: all, root: false }, 'install_apt');
    expect(o.status).toBe(0);
    expect(o.stdout).toMatch(new RegExp(`all ${all.length} packages present`));
    expect(o.aptCalls).toEqual([]);
  });

  it('names the missing packages when not root', () => {
    const o = onMachine({ installed: [], root: false }, 'install_apt');
    expect(o.status).toBe(1);
    expect(o.stderr).toMatch(
      /missing apt packages \(clickhouse-server .*\) and not root: run 'sudo tools\/setup'/,
    );
    expect(o.aptCalls).toEqual([]);
  });

  it("stops only a packaged daemon's own processes, by its user, never by `service`", () => {
    const o = onMachine({ installed: [], root: true }, 'install_apt');
    expect(o.status).toBe(0);
    expect(o.pkillCalls).toEqual([
      'pkill -TERM -u clickhouse',
      'pkill -TERM -u prometheus',
      'pkill -TERM -u prometheus',
    ]);
  });
});

describe('the error trap of the bash entry points', () => {
  it('names the step, the command, the file and the line of a failure', () => {
    const script = path.join(dir, 'entry.sh');
    writeFileSync(
      script,
      [
        '#!/usr/bin/env bash',
        'set -euo pipefail',
        `source ${REPO_ROOT}/tools/lib/common.sh`,
        'helper() { local v; v=$(cat /nonexistent/file); echo "$v"; }',
        'step "reading the thing"',
        'helper',
        'echo NOT-REACHED',
      ].join('\n'),
    );
    const r = spawnSync('bash', [script], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).not.toMatch(/NOT-REACHED/);
    expect(r.stderr).toMatch(
      /ERROR: reading the thing: `v=\$\(cat \/nonexistent\/file\)` failed with exit 1 at .*entry\.sh:4/,
    );
    // Reported once, not again by each level on the way up.
    expect(r.stderr.match(/ERROR:/g)).toHaveLength(1);
  });

  it('is installed by every entry point', () => {
    const entries = [
      'tools/setup',
      'tools/demo',
      'tools/test-all',
      'tools/pipeline',
      'tools/smoke',
      'tools/reconcile-wait',
      'tools/bench-stack',
      'tools/lint-shell',
      'tools/deadline',
      'infra/local/stack.sh',
      'infra/flink/submit.sh',
    ];
    for (const e of entries) {
      expect([e, readFileSync(path.join(REPO_ROOT, e), 'utf8')]).toEqual([
        e,
        expect.stringMatching(/source .*common\.sh/),
      ]);
    }
  });
});
