/** Shared helpers for the integration specs: cluster options, unique topic names, a quiet logger, stack control, Kafka's own tools. */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import {
  clusterOptions,
  exactlyOnce,
  localBootstrap,
  repoRoot,
  testLogger,
  uniqueId,
} from '@clickstream/test-support';
import { createIdempotentProducer, createTopics } from '../src';
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

/** Kafka's jars (fetched into .cache/kafka by tools/demo) as a Java class path, after `first` (compiled fixtures). */
export function kafkaClasspath(...first: string[]): string {
  return [...first, path.join(REPO_ROOT, '.cache/kafka/*')].join(path.delimiter);
}

export interface KafkaToolOptions {
  /** JVM options before the class path; default a 128 MB heap (the machine is shared). */
  jvm?: readonly string[];
  /** A directory of compiled classes (test/fixtures) put before Kafka's jars. */
  classes?: string;
}

/** The `java` arguments that run `mainClass` (one of Kafka's command-line tools, or a fixture in `classes`) with `args`. */
export function kafkaToolArgs(
  mainClass: string,
  args: readonly string[],
  { jvm = ['-Xmx128m'], classes }: KafkaToolOptions = {},
): string[] {
  const cp = classes === undefined ? kafkaClasspath() : kafkaClasspath(classes);
  return [...jvm, '-cp', cp, mainClass, ...args];
}

/** Runs one of Kafka's command-line tools to its end and returns what it printed; fails on a non-zero exit or after `timeoutMs`. */
export async function runKafkaTool(
  mainClass: string,
  args: readonly string[],
  { timeoutMs = 60_000, ...options }: KafkaToolOptions & { timeoutMs?: number } = {},
): Promise<string> {
  const { stdout } = await promisify(execFile)('java', kafkaToolArgs(mainClass, args, options), {
    timeout: timeoutMs,
  });
  return stdout;
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

/**
 * A new input topic seeded with `n` records and an empty output topic, `partitions` each, for a
 * copy between them; both names are pushed to `created` for the suite's cleanup.
 */
export async function seededPair(
  o: KafkaClientOptions,
  prefix: string,
  partitions: number,
  n: number,
  created: string[],
): Promise<{ input: string; output: string }> {
  const input = uniqueName(`${prefix}-in`);
  const output = uniqueName(`${prefix}-out`);
  created.push(input, output);
  await createTopics(o, [
    { topic: input, partitions },
    { topic: output, partitions },
  ]);
  const seeded = await seed(o, input, 0, n);
  if (seeded !== n) throw new Error(`seeded ${seeded} of ${n} records into ${input}`);
  return { input, output };
}

/** Exactly-once evidence for a copy: input values missing from the output, values present twice, values never sent (20 examples each). */
export function compareCopy(
  input: InRecord[],
  output: InRecord[],
): { missing: string[]; duplicated: string[]; unexpected: string[] } {
  const value = (r: InRecord): string => String(r.value);
  return exactlyOnce(input.map(value), output.map(value), 20);
}
