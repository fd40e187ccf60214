/** Shared helpers for the integration specs: cluster options, unique topic names, a quiet logger, stack control. */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { createIdempotentProducer } from '../src';
import type { InRecord, KafkaClientOptions, Logger } from '../src/types';
import { localBootstrap } from '@clickstream/test-support';

export const BOOTSTRAP = localBootstrap();
export const REPO_ROOT = path.resolve(__dirname, '../../..');

/** Warnings and errors go to stderr as JSON lines (visible when a spec fails); the rest is dropped. */
export function testLogger(name: string, bindings: object = {}): Logger {
  const write =
    (level: string) =>
    (o: object, msg?: string): void => {
      if (process.env.KAFKA_TX_TEST_LOG === 'debug' || level === 'warn' || level === 'error') {
        process.stderr.write(`${JSON.stringify({ level, name, ...bindings, ...o, msg })}\n`);
      }
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (b: object) => testLogger(name, { ...bindings, ...b }),
  };
}

export function clientOptions(name: string): KafkaClientOptions {
  return { bootstrap: BOOTSTRAP, clientId: `kafka-tx-test-${name}`, logger: testLogger(name) };
}

export function uniqueName(prefix: string): string {
  return `kt-${prefix}-${randomUUID().slice(0, 8)}`;
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

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until cond() holds, polling; a throwing cond counts as "not yet" (other engineers' tests
 * kill brokers on the shared stack), and its last error is in the timeout message.
 */
export async function waitFor(
  what: string,
  cond: () => Promise<boolean> | boolean,
  timeoutMs = 120000,
  everyMs = 500,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      if (await cond()) return;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what} (last error: ${String(lastError)})`,
      );
    }
    await sleep(everyMs);
  }
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

/** Exactly-once evidence for a copy: input values missing from the output, values present twice, values never sent. */
export function compareCopy(
  input: InRecord[],
  output: InRecord[],
): { missing: string[]; duplicated: string[]; unexpected: string[] } {
  const want = new Set(input.map((r) => String(r.value)));
  const seen = new Map<string, number>();
  for (const r of output) seen.set(String(r.value), (seen.get(String(r.value)) ?? 0) + 1);
  return {
    missing: [...want].filter((v) => !seen.has(v)).slice(0, 20),
    duplicated: [...seen]
      .filter(([, n]) => n > 1)
      .map(([v]) => v)
      .slice(0, 20),
    unexpected: [...seen.keys()].filter((v) => !want.has(v)).slice(0, 20),
  };
}
