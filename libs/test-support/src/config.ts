/** Where the integration tests find the local stack: the repository root and the Kafka bootstrap from infra/local/ports.env (KAFKA_BOOTSTRAP overrides). */

import * as fs from 'node:fs';
import * as path from 'node:path';

/** The repository root, found from the caller's directory whether it runs from sources (jest) or compiled (a bench). */
export function repoRoot(from: string = __dirname): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'nx.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no nx.json above ${from}`);
    dir = up;
  }
  return dir;
}

/** A port of the local stack by its key in infra/local/ports.env (the one file the stack runner also reads), e.g. CLICKHOUSE_TCP_PORT. */
export function localPort(key: string): number {
  const ports = fs.readFileSync(path.join(repoRoot(), 'infra/local/ports.env'), 'utf8');
  const m = new RegExp(`^${key}=(\\d+)$`, 'm').exec(ports);
  if (!m) throw new Error(`infra/local/ports.env has no ${key}`);
  return Number(m[1]);
}

/** The three brokers' addresses. */
export function localBootstrap(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KAFKA_BOOTSTRAP) return env.KAFKA_BOOTSTRAP;
  return [1, 2, 3].map((n) => `127.0.0.1:${localPort(`KAFKA_${n}_PORT`)}`).join(',');
}

/** The level of the tests' own logger: TEST_LOG_LEVEL, else warn. */
export function testLogLevel(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEST_LOG_LEVEL ?? 'warn';
}

/** This process's environment with `extra` set, for a child process of a test. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}
