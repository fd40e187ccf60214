/**
 * CI runs `nx affected`: a change to the stack definition (DDL, stack.sh, broker config) must select
 * every integration suite that runs against the stack, not only the infra project's own.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './support/stack';

function affectedBy(file: string): string[] {
  const out = execFileSync(
    'npx',
    ['nx', 'show', 'projects', '--affected', `--files=${file}`, '--json'],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, NX_DAEMON: 'false' },
    },
  );
  return JSON.parse(out) as string[];
}

describe('nx affected and the stack definition', () => {
  it.each([
    'infra/clickhouse/ddl/001_events_valid.sql',
    'infra/local/stack.sh',
    'infra/local/kafka/server.properties.tmpl',
  ])(
    'a change to %s selects the suites that run on the stack',
    (file) => {
      const affected = affectedBy(file);
      for (const p of [
        'loader',
        'warehouse',
        'e2e',
        'kafka-tx',
        'gatekeeper',
        'reconciler',
        'flink-jobs',
      ]) {
        expect([file, affected]).toEqual([file, expect.arrayContaining([p])]);
      }
    },
    60_000,
  );
});

describe('nx in a terminal', () => {
  it('never stops a run to ask about analytics (./tools/demo in a terminal waited for ever)', () => {
    const nx = JSON.parse(readFileSync(path.join(REPO_ROOT, 'nx.json'), 'utf8')) as {
      analytics?: unknown;
    };
    // Nx 23 prompts on a TTY unless nx.json says true or false.
    expect(typeof nx.analytics).toBe('boolean');
  });
});
