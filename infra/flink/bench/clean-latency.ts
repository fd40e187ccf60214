/**
 * Benchmark: latency the clean job adds between events.valid and events.clean (clean-visible under read_committed
 * minus the valid record's timestamp, which the job preserves) at a steady rate; writes results/bench/flink-clean.json.
 * Env: BENCH_RATE (sends/s, default 1000), BENCH_SECONDS (measured, default 60), BENCH_WARMUP_SECONDS (default 15),
 *      BENCH_CHECKPOINT_MS (default 5000), BENCH_PARALLELISM (default 2), BENCH_STATE_BACKEND (rocksdb | hashmap, default rocksdb).
 */

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  createIdempotentProducer,
  runAtLeastOnceConsumer,
  type OutRecord,
} from '@clickstream/kafka-tx';
import {
  cancelJob,
  clusterOptions,
  createRunTopics,
  dropRun,
  freshRun,
  repoRoot,
  seedValid,
  sleep,
  submitClean,
} from '../test/harness';

function intEnv(key: string, dflt: number): number {
  const raw = process.env[key];
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`${key}='${raw}' is invalid: expected a positive integer`);
  return n;
}

function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? null;
}

async function main(): Promise<void> {
  const rate = intEnv('BENCH_RATE', 1000);
  const seconds = intEnv('BENCH_SECONDS', 60);
  const warmup = intEnv('BENCH_WARMUP_SECONDS', 15);
  const checkpointMs = intEnv('BENCH_CHECKPOINT_MS', 5000);
  const parallelism = intEnv('BENCH_PARALLELISM', 2);
  const stateBackend = process.env.BENCH_STATE_BACKEND ?? 'rocksdb';
  if (stateBackend !== 'rocksdb' && stateBackend !== 'hashmap')
    throw new Error(
      `BENCH_STATE_BACKEND='${stateBackend}' is invalid: expected rocksdb or hashmap`,
    );
  const run = freshRun('bench');
  const total = rate * (warmup + seconds);
  // 10% of events duplicated (as the generator does), so the dedup state and the dropped copies cost what they cost.
  const seeded = seedValid(run.valid, `bench-${run.id}`, 42, 0, Math.round(total / 1.2), 0.1, 2000);
  const sends = seeded.sends.slice(0, total);

  await createRunTopics(run);
  const abort = new AbortController();
  const latencies: number[] = [];
  let measureFrom = Number.POSITIVE_INFINITY;
  let received = 0;
  try {
    await submitClean(run, [
      '--checkpoint-interval-ms',
      String(checkpointMs),
      '--parallelism',
      String(parallelism),
      '--state-backend',
      stateBackend,
    ]);
    const consumer = runAtLeastOnceConsumer({
      client: clusterOptions('flink-bench-consumer'),
      groupId: `flink-bench-${run.id}`,
      topics: [run.clean],
      isolation: 'read_committed',
      startFrom: 'earliest',
      maxBatchMs: 20,
      signal: abort.signal,
      onBatch: (records) => {
        const now = Date.now();
        for (const r of records) {
          received++;
          if (r.timestamp >= measureFrom) latencies.push(now - r.timestamp);
        }
        return Promise.resolve();
      },
    });

    const producer = await createIdempotentProducer(clusterOptions('flink-bench-producer'));
    const tickMs = 100;
    const perTick = Math.max(1, Math.round((rate * tickMs) / 1000));
    const started = Date.now();
    measureFrom = started + warmup * 1000;
    for (let i = 0, tick = 0; i < sends.length; i += perTick, tick++) {
      const now = Date.now();
      const batch: OutRecord[] = sends.slice(i, i + perTick).map((r) => ({ ...r, timestamp: now }));
      const reports = await producer.send(batch);
      if (reports.some((r) => !r.ok))
        throw new Error(`send failed: ${reports.find((r) => !r.ok)?.error ?? '?'}`);
      const next = started + (tick + 1) * tickMs;
      if (next > Date.now()) await sleep(next - Date.now());
    }
    const producedMs = Date.now() - started;
    await producer.close();
    // Let the last checkpoints commit what was sent.
    await sleep(checkpointMs * 3 + 5000);
    abort.abort();
    await consumer;

    latencies.sort((a, b) => a - b);
    const result = {
      benchmark: 'flink-clean',
      measured:
        'events.clean visible (read_committed consumer wall clock) minus events.valid record timestamp',
      date: new Date().toISOString(),
      command: 'npx nx run flink-jobs:bench-clean',
      params: {
        rate,
        seconds,
        warmupSeconds: warmup,
        checkpointIntervalMs: checkpointMs,
        parallelism,
        stateBackend,
        duplicateRate: 0.1,
      },
      sent: sends.length,
      achievedRate: Math.round((sends.length / producedMs) * 1000),
      distinctSent: new Set(sends.map((s) => String(s.headers?.['cs-seq']))).size,
      received,
      samples: latencies.length,
      latencyMs: {
        p50: quantile(latencies, 0.5),
        p90: quantile(latencies, 0.9),
        p99: quantile(latencies, 0.99),
        max: latencies.at(-1) ?? null,
      },
      machine: {
        cpus: os.cpus().length,
        loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
      },
    };
    const out = path.join(repoRoot(), 'results/bench/flink-clean.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    // Every run also goes to a history file: on the shared machine one run alone can be an outlier.
    fs.appendFileSync(
      path.join(repoRoot(), 'results/bench/flink-clean-runs.jsonl'),
      `${JSON.stringify(result)}\n`,
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    abort.abort();
    await cancelJob(run.jobName).catch(() => undefined);
    await dropRun(run).catch(() => undefined);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(
    `bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(1);
});
