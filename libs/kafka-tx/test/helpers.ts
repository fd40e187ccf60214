/** Shared helpers for the integration specs: cluster options, unique topic names, a quiet logger, stack control. */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import {
  clusterOptions,
  exactlyOnce,
  localBootstrap,
  repoRoot,
  testLogger,
  uniqueId,
} from '@clickstream/test-support';
import { createIdempotentProducer } from '../src';
import type { InRecord, KafkaClientOptions } from '../src/types';

export { sleep, waitFor } from '@clickstream/test-support';

export const BOOTSTRAP = localBootstrap();
export const REPO_ROOT = repoRoot();

export function clientOptions(name: string): KafkaClientOptions {
  return clusterOptions(`kafka-tx-test-${name}`, testLogger.child({ name }));
}

export function uniqueName(prefix: string): string {
  return uniqueId(`kt-${prefix}`);
}

/** Runs infra/local/stack.sh with the given arguments. */
export function stack(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'bash',
      [path.join(REPO_ROOT, 'infra/local/stack.sh'), ...args],
      { cwd: REPO_ROOT },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`stack.sh ${args.join(' ')} failed: ${err.message}\n${stderr}`))
          : resolve(stdout),
    ),
  );
}

/** Produces n records with values "0".."n-1" (keys "k<i>") and returns how many were acknowledged. */
export async function seed(
  o: KafkaClientOptions,
  topic: string,
  from: number,
  n: number,
): Promise<number> {
  const p = await createIdempotentProducer(o);
  try {
    const reports = await p.send(
      Array.from({ length: n }, (_, i) => ({
        topic,
        key: `k${from + i}`,
        value: Buffer.from(String(from + i)),
      })),
    );
    return reports.filter((r) => r.ok).length;
  } finally {
    await p.close();
  }
}

/** Exactly-once evidence for a copy: input values missing from the output, values present twice, values never sent (20 examples each). */
export function compareCopy(
  input: InRecord[],
  output: InRecord[],
): { missing: string[]; duplicated: string[]; unexpected: string[] } {
  const value = (r: InRecord): string => String(r.value);
  return exactlyOnce(input.map(value), output.map(value), 20);
}
