/** Benchmark (not a test): records/s through runTransactionalLoop with an identity transform, one transaction per ~100 ms batch. */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import {
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  readTopic,
  runTransactionalLoop,
} from '../src';
import type { KafkaClientOptions, Logger } from '../src';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? (args[i + 1] as string) : dflt;
};
const RECORDS = Number(arg('records', '100000'));
const OUT = arg('out', 'results/bench/kafka-tx.json');
const BOOTSTRAP = arg('bootstrap', '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092');
const PARTITIONS = Number(arg('partitions', '6'));
if (!Number.isInteger(RECORDS) || RECORDS <= 0)
  throw new Error(`--records=${arg('records', '')} is invalid, expected a positive integer`);

const logger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (o, msg) => process.stderr.write(`${JSON.stringify({ level: 'warn', ...o, msg })}\n`),
  error: (o, msg) => process.stderr.write(`${JSON.stringify({ level: 'error', ...o, msg })}\n`),
};
const client: KafkaClientOptions = { bootstrap: BOOTSTRAP, clientId: 'kafka-tx-bench', logger };

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

interface Case {
  name: string;
  maxBatchRecords: number;
  maxBatchMs: number;
}

async function runCase(c: Case, input: string): Promise<object> {
  const output = `kt-bench-out-${randomUUID().slice(0, 8)}`;
  await createTopics(client, [{ topic: output, partitions: PARTITIONS }]);
  try {
    const stop = new AbortController();
    const commitMs: number[] = [];
    const commitRecords: number[] = [];
    let copied = 0;
    let firstCommitAt = 0;
    let lastCommitAt = 0;
    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    const result = await runTransactionalLoop({
      client,
      groupId: `kt-bench-${randomUUID()}`,
      transactionalId: `kt-bench-${randomUUID()}`,
      inputTopics: [input],
      maxBatchRecords: c.maxBatchRecords,
      maxBatchMs: c.maxBatchMs,
      transform: (batch) =>
        batch.map((r) => ({
          topic: output,
          partition: r.partition,
          key: r.key,
          value: r.value,
          headers: r.headers,
        })),
      hooks: {
        onCommit: (ms, n) => {
          const now = Date.now();
          if (firstCommitAt === 0) firstCommitAt = now - ms;
          lastCommitAt = now;
          commitMs.push(ms);
          commitRecords.push(n);
          copied += n;
          if (copied >= RECORDS) stop.abort();
        },
      },
      signal: stop.signal,
    });
    const cpu = process.cpuUsage(cpu0);
    const seconds = (lastCommitAt - firstCommitAt) / 1000;
    // Read back read_committed: the copy must hold exactly the input count (end offsets would also count transaction markers).
    const outCount = (await readTopic({ ...client, topic: output })).length;
    return {
      case: c,
      result: result.reason,
      records: copied,
      outputRecordsReadCommitted: outCount,
      transactions: commitMs.length,
      seconds,
      recordsPerSecond: Math.round(copied / seconds),
      startupSeconds: (firstCommitAt - t0) / 1000,
      recordsPerTransaction: {
        mean: Math.round(copied / commitMs.length),
        p50: quantile(commitRecords, 0.5),
        max: Math.max(...commitRecords),
      },
      transactionMs: {
        p50: quantile(commitMs, 0.5),
        p90: quantile(commitMs, 0.9),
        p99: quantile(commitMs, 0.99),
        max: Math.max(...commitMs),
      },
      cpuSecondsOfThisProcess: (cpu.user + cpu.system) / 1e6,
    };
  } finally {
    await deleteTopics(client, [output]);
  }
}

async function main(): Promise<void> {
  const input = `kt-bench-in-${randomUUID().slice(0, 8)}`;
  await createTopics(client, [{ topic: input, partitions: PARTITIONS }]);
  try {
    const value = Buffer.alloc(128, 'x');
    const producer = await createIdempotentProducer(client);
    const p0 = Date.now();
    let acked = 0;
    for (let i = 0; i < RECORDS; i += 5000) {
      const n = Math.min(5000, RECORDS - i);
      const reports = await producer.send(
        Array.from({ length: n }, (_, j) => ({
          topic: input,
          key: `k${i + j}`,
          value,
          headers: { 'cs-seq': String(i + j) },
        })),
      );
      acked += reports.filter((r) => r.ok).length;
    }
    const produceSeconds = (Date.now() - p0) / 1000;
    await producer.close();
    if (acked !== RECORDS)
      throw new Error(`only ${acked} of ${RECORDS} input records were acknowledged`);

    const cases: Case[] = [
      {
        name: 'defaults: 500 records or 100 ms per transaction',
        maxBatchRecords: 500,
        maxBatchMs: 100,
      },
      { name: '2,000 records or 100 ms per transaction', maxBatchRecords: 2000, maxBatchMs: 100 },
      { name: '20,000 records or 100 ms per transaction', maxBatchRecords: 20000, maxBatchMs: 100 },
    ];
    const results = [];
    for (const c of cases) {
      const r = await runCase(c, input);
      process.stderr.write(`${JSON.stringify(r)}\n`);
      results.push(r);
    }
    const report = {
      bench: 'kafka-tx identity transactional copy',
      command: `npx nx run kafka-tx:bench -- --records ${RECORDS}`,
      measuredAt: new Date().toISOString(),
      node: process.version,
      bootstrap: BOOTSTRAP,
      partitions: PARTITIONS,
      recordBytes: value.length,
      loadAverage1mAtEnd: loadavg()[0],
      idempotentProducer: {
        records: RECORDS,
        seconds: produceSeconds,
        recordsPerSecond: Math.round(RECORDS / produceSeconds),
      },
      cases: results,
    };
    mkdirSync(path.dirname(OUT), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await deleteTopics(client, [input]);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${String(e)}\n`);
  process.exit(1);
});
