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

/** The three brokers' addresses, read from the one file the stack runner also reads. */
export function localBootstrap(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KAFKA_BOOTSTRAP) return env.KAFKA_BOOTSTRAP;
  const ports = fs.readFileSync(path.join(repoRoot(), 'infra/local/ports.env'), 'utf8');
  const port = (n: number): string => {
    const m = new RegExp(`^KAFKA_${n}_PORT=(\\d+)$`, 'm').exec(ports);
    if (!m) throw new Error(`infra/local/ports.env has no KAFKA_${n}_PORT`);
    return `127.0.0.1:${m[1]}`;
  };
  return [1, 2, 3].map(port).join(',');
}

/** The level of the tests' own logger: TEST_LOG_LEVEL, else warn. */
export function testLogLevel(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEST_LOG_LEVEL ?? 'warn';
}
