/** What the collector's integration specs share: a collector child on a fresh raw topic, the built generator and reconciler CLIs, stack node control. */

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ReconciliationReportSchema, type ReconciliationReport } from '@clickstream/contracts';
import { createTopics, deleteTopics } from '@clickstream/kafka-tx';
import { LEDGER_FILE, readLedger } from '@clickstream/ledger';
import { clusterOptions, localBootstrap, repoRoot, uniqueId } from '@clickstream/test-support';

const run = promisify(execFile);
export const ROOT = repoRoot();
const node = (app: string): string => path.join(ROOT, 'apps', app, 'dist', 'main.js');

/** A topic made like clickstream.raw (6 partitions, RF 3, broker-stamped LogAppendTime). */
export async function freshRawTopic(): Promise<string> {
  const topic = `it.collector.raw.${uniqueId('c')}`;
  await createTopics(clusterOptions('collector-it'), [
    { topic, partitions: 6, config: { 'message.timestamp.type': 'LogAppendTime' } },
  ]);
  return topic;
}

export async function dropTopics(topics: string[]): Promise<void> {
  if (topics.length === 0) return;
  // Cleanup only: right after a broker restart the delete may time out; one retry, then leave the topic.
  await deleteTopics(clusterOptions('collector-it'), topics).catch(() =>
    deleteTopics(clusterOptions('collector-it'), topics).catch((err: unknown) => {
      process.stderr.write(
        `collector-it: topics not deleted (${String(err)}): ${topics.join(', ')}\n`,
      );
    }),
  );
}

export interface CollectorChild {
  url: string;
  metricsUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the built collector on free ports and resolves once it listens. */
export function startCollector(topic: string, flags: string[] = []): Promise<CollectorChild> {
  const child = spawn(
    process.execPath,
    [
      node('collector'),
      '--topic',
      topic,
      '--port',
      '0',
      '--metrics-port',
      '0',
      '--bootstrap',
      localBootstrap(),
      ...flags,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (d: Buffer): void => {
      buffered += d.toString();
      for (const line of buffered.split('\n')) {
        if (!line.includes('"collector listening"')) continue;
        const { port, metricsPort } = JSON.parse(line) as { port: number; metricsPort: number };
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve({
          url: `http://127.0.0.1:${port}/v1/events`,
          metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
          child,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`collector exited ${code} before listening`)));
  });
}

export interface GeneratorSummary {
  run_id: string;
  sends: number;
  acked: number;
  failed: number;
  manifest: string;
}

/** Runs the built generator through the collector; resolves its summary and run directory. */
export async function generateViaHttp(
  collectorUrl: string,
  resultsDir: string,
  args: string[],
): Promise<{ summary: GeneratorSummary; runDir: string }> {
  const { stdout } = await run(
    process.execPath,
    [
      node('generator'),
      '--via',
      'http',
      '--collector-url',
      collectorUrl,
      '--results-dir',
      resultsDir,
      ...args,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const summary = JSON.parse(stdout.trim().split('\n').pop() as string) as GeneratorSummary;
  return { summary, runDir: path.dirname(summary.manifest) };
}

/** The reconciler's verdict on the raw layer (the collector's own) read from a test topic. */
export async function reconcileRaw(runDir: string, topic: string): Promise<ReconciliationReport> {
  const out = path.join(runDir, 'reconcile-raw.json');
  await run(
    process.execPath,
    [
      node('reconciler'),
      '--run-dir',
      runDir,
      '--layers',
      'clickstream.raw',
      '--topic-raw',
      topic,
      '--out',
      out,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  ).catch((err: { code?: number }) => {
    // Exit 1 = a layer is not exact: the report says which; anything else is a failure to run.
    if (err.code !== 1) throw err;
  });
  return ReconciliationReportSchema.parse(JSON.parse(fs.readFileSync(out, 'utf8')));
}

/** `bash infra/local/stack.sh kill-node N` / `restart-node N` (the shared stack: always restore). */
export async function stackNode(command: 'kill-node' | 'restart-node', n: number): Promise<void> {
  // A restarted broker reloads every partition's log: on the shared 2-core machine that can take
  // longer than stack.sh's default 90 s wait, and a second restart-node would kill it mid-load.
  await run('bash', [path.join(ROOT, 'infra/local/stack.sh'), command, String(n)], {
    timeout: 330_000,
    env: { ...process.env, KAFKA_START_TIMEOUT: '300' },
  });
}

/** Sums a counter of the collector's /metrics over the label sets that match. */
export async function metricSum(
  metricsUrl: string,
  name: string,
  match: RegExp = /.*/,
): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!match.test(line)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** How a client saw a failed send: answered 503, another status, cut (reset/closed), timed out. */
export type FailureKind = 'http_503' | 'http_other' | 'reset' | 'timeout' | 'other';

/** Classifies the generator's delivery_error of a failed HTTP send (apps/generator/src/http-sink.ts). */
export function failureKind(error: string): FailureKind {
  if (/^HTTP 503 /.test(error)) return 'http_503';
  if (/^HTTP \d+ /.test(error)) return 'http_other';
  if (/ECONNRESET|other side closed|socket hang up|EPIPE|ECONNREFUSED|SocketError/.test(error))
    return 'reset';
  if (/aborted due to timeout|TimeoutError/.test(error)) return 'timeout';
  return 'other';
}

/** Failed sends of a run by how the client saw them, with the first error text of each kind. */
export async function failureKinds(runDir: string): Promise<{
  counts: Record<FailureKind, number>;
  examples: Partial<Record<FailureKind, string>>;
}> {
  const counts: Record<FailureKind, number> = {
    http_503: 0,
    http_other: 0,
    reset: 0,
    timeout: 0,
    other: 0,
  };
  const examples: Partial<Record<FailureKind, string>> = {};
  for (const row of await readLedger(path.join(runDir, LEDGER_FILE), { validate: false })) {
    if (row.delivery !== 'failed') continue;
    const error = row.delivery_error ?? '';
    const kind = failureKind(error);
    counts[kind] += 1;
    examples[kind] ??= error.slice(0, 300);
  }
  return { counts, examples };
}

/** Every sample of a metric of the collector's /metrics, as label text -> value. */
export async function metricSamples(
  metricsUrl: string,
  name: string,
): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const at = line.lastIndexOf(' ');
    out[line.slice(name.length, at) || '{}'] = Number(line.slice(at + 1));
  }
  return out;
}

/**
 * The kernel's TCP counters that a client timeout could come from without the collector seeing the
 * request at all: connections dropped because a listen queue was full (ListenOverflows,
 * ListenDrops) or a SYN dropped (TCPReqQFullDrop). Machine-wide, since boot; {} where
 * /proc/net/netstat is not there.
 */
export function listenDrops(): Record<string, number> {
  let text: string;
  try {
    text = fs.readFileSync('/proc/net/netstat', 'utf8');
  } catch {
    return {};
  }
  const lines = text.split('\n').filter((l) => l.startsWith('TcpExt:'));
  const names = lines[0]?.split(/\s+/).slice(1) ?? [];
  const values = lines[1]?.split(/\s+/).slice(1) ?? [];
  const wanted = new Set(['ListenOverflows', 'ListenDrops', 'TCPReqQFullDrop']);
  return Object.fromEntries(
    names.map((n, i) => [n, Number(values[i])] as const).filter(([n]) => wanted.has(n)),
  );
}
