/** Runs one function of infra/flink/submit.sh on its own, the way the script runs it (bash, `set -euo pipefail`). */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './stack';

/** The text of `fn() { ... }` in submit.sh (up to the first line that is a lone `}`); throws if it is not there. */
export function submitFunction(fn: string): string {
  const submit = readFileSync(path.join(REPO_ROOT, 'infra/flink/submit.sh'), 'utf8');
  const text = new RegExp(`^${fn}\\(\\) \\{\\n[\\s\\S]*?\\n\\}\\n`, 'm').exec(submit)?.[0];
  if (text === undefined) throw new Error(`no function ${fn}() in infra/flink/submit.sh`);
  return text;
}

/**
 * Calls `fn "$@"` with `vars` set first, the submit.sh functions it calls (`uses`) defined beside it, and submit.sh's
 * `log` and `die` stood in for (both write to stderr; `die` exits 1), so that a spec sees what the function logs and
 * how it fails.
 */
export function runSubmitFunction(
  fn: string,
  vars: Record<string, string>,
  args: string[],
  uses: string[] = [],
): SpawnSyncReturns<string> {
  const set = Object.entries(vars)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join('\n');
  const script = [
    'set -euo pipefail',
    set,
    'log() { printf "%s\\n" "$*" >&2; }',
    'die() { printf "error: %s\\n" "$*" >&2; exit 1; }',
    ...uses.map(submitFunction),
    submitFunction(fn),
    `${fn} "$@"`,
  ].join('\n');
  return spawnSync('bash', ['-c', script, 'submit.sh', ...args], { encoding: 'utf8' });
}
