/**
 * Benchmark of the windows job: time from a window's end to its final row being visible (read_committed) on the
 * agg.windows topic, at a steady rate of events written to a test copy of events.clean with ingest_time = now; plus the
 * job's checkpointed state size and the TaskManager's CPU with the job running minus an idle baseline.
 * Writes results/bench/flink-windows.json (and appends to flink-windows-runs.jsonl).
 * Env: BENCH_RATE (events/s, default 1000), BENCH_SECONDS (measured, default 90), BENCH_WARMUP_SECONDS (default 20),
 *      BENCH_BASELINE_SECONDS (TaskManager CPU before the job starts, default 20),
 *      BENCH_JOB_ARGS (extra program args of the job, space-separated, e.g. "--state-backend hashmap"),
 *      FLINK_WINDOWS_JAR (another build of the job, read by submit.sh: a before/after comparison).
 */

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import {
  EVENT_TYPES,
  HEADERS,
  decodeWindowAggregate,
  encodeEvent,
  type ClickEvent,
} from '@clickstream/contracts';
import {
  createIdempotentProducer,
  runAtLeastOnceConsumer,
  type OutRecord,
} from '@clickstream/kafka-tx';
import {
  FLINK_REST,
  PARTITIONS,
  cancelJob,
  clusterOptions,
  prng,
  repoRoot,
  sleep,
} from '../test/harness';
import {
  createWindowsTopics,
  dropWindowsRun,
  freshWindowsRun,
  submitWindows,
} from '../test/windows-run';

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

/** utime + stime of a process in seconds (clock ticks of 1/100 s on Linux). */
function cpuSeconds(pid: number, file = `/proc/${pid}/stat`): number {
  const stat = fs.readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The windows job's task threads (Linux truncates thread names to 15 characters). */
const TASK_THREAD_NAMES = ['Source: windows', '10 s tumbling w', '30 s gap sessio'];

/** Thread id -> name and utime + stime (s) of the TaskManager's threads that carry one of the windows job's task names. */
function taskThreadCpu(pid: number): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      if (TASK_THREAD_NAMES.includes(comm))
        out.set(tid, {
          name: comm,
          cpu: cpuSeconds(Number(pid), `/proc/${pid}/task/${tid}/stat`),
        });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

async function rest<T>(p: string): Promise<T> {
  const res = await fetch(`${FLINK_REST}${p}`);
  if (!res.ok) throw new Error(`GET ${p}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/**
 * On-time events the job's sessions task has read so far (each aggregator reads every on-time event): the count the
 * CPU is divided by when the job falls behind the sent rate on a busy machine.
 */
async function sessionsRead(jobId: string): Promise<number> {
  const job = await rest<{ vertices: { name: string; metrics: Record<string, number> }[] }>(
    `/jobs/${jobId}`,
  );
  const v = job.vertices.find((x) => x.name.startsWith('30 s gap sessions'));
  return v?.metrics['read-records'] ?? 0;
}

interface CheckpointStats {
  counts: { completed: number; failed: number };
  latest: {
    completed: {
      state_size: number;
      checkpointed_size: number;
      end_to_end_duration: number;
    } | null;
  };
}

async function main(): Promise<void> {
  const rate = intEnv('BENCH_RATE', 1000);
  const seconds = intEnv('BENCH_SECONDS', 90);
  const warmup = intEnv('BENCH_WARMUP_SECONDS', 20);
  const baselineSeconds = intEnv('BENCH_BASELINE_SECONDS', 20);
  const jobArgs = (process.env.BENCH_JOB_ARGS ?? '').split(' ').filter((a) => a !== '');
  const run = freshWindowsRun('wbench');
  const runId = `bench-${run.id}`;
  const tmPid = Number(
    fs.readFileSync(path.join(repoRoot(), '.run/pids/flink-taskmanager.pid'), 'utf8').trim(),
  );
  const rand = prng(7);

  await createWindowsTopics(run);
  const abort = new AbortController();
  // "<window_end>|<event_type>" -> latency of the first final row of that window key.
  const finalLatency = new Map<string, { windowEnd: number; latencyMs: number }>();
  let windowRows = 0;
  try {
    const cpu0 = cpuSeconds(tmPid);
    await sleep(baselineSeconds * 1000);
    const baselineCpuPerS = (cpuSeconds(tmPid) - cpu0) / baselineSeconds;

    // Threads of a windows job that runs already (production) are not this job's.
    const otherThreads = new Set(taskThreadCpu(tmPid).keys());
    const jobId = await submitWindows(run, jobArgs);
    const consumer = runAtLeastOnceConsumer({
      client: clusterOptions('flink-bench-consumer'),
      groupId: `flink-bench-${run.id}`,
      topics: [run.windows],
      isolation: 'read_committed',
      startFrom: 'earliest',
      maxBatchMs: 20,
      signal: abort.signal,
      onBatch: (records) => {
        const now = Date.now();
        for (const r of records) {
          windowRows++;
          const d = decodeWindowAggregate(r.value);
          if (!d.ok || d.value.run_id !== runId || !d.value.is_final) continue;
          const key = `${d.value.window_end}|${d.value.event_type}`;
          if (!finalLatency.has(key))
            finalLatency.set(key, {
              windowEnd: d.value.window_end,
              latencyMs: now - d.value.window_end,
            });
        }
        return Promise.resolve();
      },
    });

    const producer = await createIdempotentProducer(clusterOptions('flink-bench-producer'));
    const tickMs = 100;
    const perTick = Math.max(1, Math.round((rate * tickMs) / 1000));
    const started = Date.now();
    const measureFrom = started + warmup * 1000;
    const end = measureFrom + seconds * 1000;
    let sent = 0;
    let cpuAtMeasure = 0;
    let threadsAtMeasure = new Map<string, { name: string; cpu: number }>();
    let readAtMeasure = 0;
    let checkpointAtEnd: CheckpointStats | null = null;
    for (let tick = 0; Date.now() < end; tick++) {
      const now = Date.now();
      if (cpuAtMeasure === 0 && now >= measureFrom) {
        cpuAtMeasure = cpuSeconds(tmPid);
        threadsAtMeasure = taskThreadCpu(tmPid);
        readAtMeasure = await sessionsRead(jobId);
      }
      const batch: OutRecord[] = [];
      for (let i = 0; i < perTick; i++) {
        const sessionId = `sess-${Math.floor(rand() * 500)}`;
        const type = EVENT_TYPES[
          Math.floor(rand() * EVENT_TYPES.length)
        ] as ClickEvent['event_type'];
        const late = rand() < 0.03;
        const eventTime = late
          ? now - 6000 - Math.floor(rand() * 60_000)
          : now - Math.floor(rand() * 3000);
        const seq = sent++;
        const payment = type === 'payment_succeeded';
        const event: ClickEvent = {
          event_id: randomUUID(),
          seq,
          run_id: runId,
          event_type: type,
          event_time: eventTime,
          session_id: sessionId,
          user_id: null,
          page: '/p',
          product_id: null,
          quantity: null,
          amount_cents: payment ? 1000 : null,
          currency: payment ? 'EUR' : null,
          device: 'mobile',
          ingest_time: now,
        };
        batch.push({
          topic: run.clean,
          partition: Number(sessionId.slice(5)) % PARTITIONS,
          key: sessionId,
          value: encodeEvent(event),
          headers: { [HEADERS.seq]: String(seq), [HEADERS.runId]: runId },
          timestamp: now,
        });
      }
      const reports = await producer.send(batch);
      if (reports.some((r) => !r.ok))
        throw new Error(`send failed: ${reports.find((r) => !r.ok)?.error ?? '?'}`);
      const next = started + (tick + 1) * tickMs;
      if (next > Date.now()) await sleep(next - Date.now());
    }
    const cpuMeasured = cpuSeconds(tmPid) - cpuAtMeasure;
    let taskCpu = 0;
    const perThread: Record<string, number> = {};
    for (const [tid, { name, cpu }] of taskThreadCpu(tmPid)) {
      if (otherThreads.has(tid)) continue;
      const used = cpu - (threadsAtMeasure.get(tid)?.cpu ?? 0);
      taskCpu += used;
      perThread[name] = (perThread[name] ?? 0) + used;
    }
    const measuredSeconds = (Date.now() - measureFrom) / 1000;
    const readMeasured = (await sessionsRead(jobId)) - readAtMeasure;
    checkpointAtEnd = await rest<CheckpointStats>(`/jobs/${jobId}/checkpoints`);
    await producer.close();
    abort.abort();
    await consumer;

    // Windows that ended inside the measured period, minus the last 20 s (their finality needs later ingest times).
    const lat = [...finalLatency.values()]
      .filter((f) => f.windowEnd >= measureFrom && f.windowEnd <= end - 20_000)
      .map((f) => f.latencyMs)
      .sort((a, b) => a - b);
    const jobCpuPerS = cpuMeasured / measuredSeconds - baselineCpuPerS;
    const result = {
      benchmark: 'flink-windows',
      measured:
        'agg.windows: wall clock when a read_committed consumer first sees the final row of a (window, event type), minus window_end',
      date: new Date().toISOString(),
      command: 'npx nx run flink-jobs:bench-windows',
      params: {
        rate,
        seconds,
        warmupSeconds: warmup,
        baselineSeconds,
        latenessMs: 5000,
        checkpointIntervalMs: 5000,
        jobArgs,
        jar: process.env.FLINK_WINDOWS_JAR ?? 'infra/flink/jobs/windows/target/windows-job.jar',
      },
      sent,
      windowRows,
      samples: lat.length,
      windowEndToFinalMs: {
        p50: quantile(lat, 0.5),
        p90: quantile(lat, 0.9),
        p99: quantile(lat, 0.99),
        max: lat.at(-1) ?? null,
      },
      state: checkpointAtEnd.latest.completed,
      checkpoints: checkpointAtEnd.counts,
      taskManagerCpu: {
        baselineCoresBeforeJob: Math.round(baselineCpuPerS * 1000) / 1000,
        coresWithJob: Math.round((cpuMeasured / measuredSeconds) * 1000) / 1000,
        jobCoresPer1kEventsPerS: Math.round(((jobCpuPerS * 1000) / rate) * 1000) / 1000,
        // The job's three task threads only: no Kafka client I/O threads, GC, JIT or async checkpoint threads.
        taskThreadCoresPer1kEventsPerS:
          Math.round(((taskCpu / measuredSeconds) * 1000 * 1000) / rate) / 1000,
        // Per 1,000 on-time events the job actually processed in the measured period (its REST read-records,
        // refreshed every few seconds): the fair figure when the job falls behind on a busy machine.
        onTimeEventsProcessed: readMeasured,
        taskThreadCpuMsPer1kProcessed:
          readMeasured > 0
            ? Math.round(((taskCpu * 1000) / readMeasured) * 1000 * 100) / 100
            : null,
        perTaskThreadCpuMsPer1kProcessed: Object.fromEntries(
          Object.entries(perThread).map(([name, used]) => [
            name,
            readMeasured > 0 ? Math.round(((used * 1000) / readMeasured) * 1000 * 100) / 100 : null,
          ]),
        ),
        perTaskThreadCoresPer1kEventsPerS: Object.fromEntries(
          Object.entries(perThread).map(([name, used]) => [
            name,
            Math.round(((used / measuredSeconds) * 1000 * 1000) / rate) / 1000,
          ]),
        ),
      },
      machine: {
        cpus: os.cpus().length,
        loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
      },
    };
    const out = path.join(repoRoot(), 'results/bench/flink-windows.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    fs.appendFileSync(
      path.join(repoRoot(), 'results/bench/flink-windows-runs.jsonl'),
      `${JSON.stringify(result)}\n`,
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    abort.abort();
    await cancelJob(run.jobName).catch(() => undefined);
    await dropWindowsRun(run).catch(() => undefined);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(
    `bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(1);
});
