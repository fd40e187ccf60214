/** Benchmark: reconciliation time per million events (ledger read, Kafka header extraction, the core over every layer), optionally the Kafka read rate. */

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { writeLedger } from '@clickstream/ledger';
import { extractRun } from '../src/adapters/kafka';
import type { LayerRead } from '../src/core/contents';
import type { EventLayer } from '../src/core/layers';
import { readLedgerIndex } from '../src/adapters/ledger';
import { reconcile } from '../src/core/reconcile';
import { kafkaReadRate } from './kafka-rate';
import { BENCH_RUN, exactContents, syntheticLedger, syntheticRecords } from './synthetic';

interface Args {
  sizes: number[];
  out: string;
  kafkaRecords: number;
  bootstrap: string;
}

function parseArgs(argv: string[]): Args {
  const a: Args = {
    sizes: [1_000_000, 2_700_000],
    out: 'results/bench/reconciler.json',
    kafkaRecords: 0,
    bootstrap: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`flag ${flag} needs a value`);
    if (flag === '--n') a.sizes = value.split(',').map(Number);
    else if (flag === '--out') a.out = value;
    else if (flag === '--kafka-records') a.kafkaRecords = Number(value);
    else if (flag === '--bootstrap') a.bootstrap = value;
    else
      throw new Error(
        `unknown flag ${flag}; usage: bench [--n 1000000,2700000] [--out FILE] [--kafka-records N] [--bootstrap HOSTS]`,
      );
  }
  if (a.sizes.some((n) => !Number.isInteger(n) || n <= 0))
    throw new Error(`invalid --n: expected positive integers`);
  if (!Number.isInteger(a.kafkaRecords) || a.kafkaRecords < 0)
    throw new Error(`invalid --kafka-records: expected a non-negative integer`);
  return a;
}

/** Wall and CPU (user + system, this process, GC included) time of a phase, ms: CPU time is what the shared machine cannot inflate. */
class Clock {
  wall = 0;
  cpu = 0;
  async time<T>(f: () => T | Promise<T>): Promise<T> {
    const w = process.hrtime.bigint();
    const c = process.cpuUsage();
    const out = await f();
    const dc = process.cpuUsage(c);
    this.cpu += (dc.user + dc.system) / 1000;
    this.wall += Number(process.hrtime.bigint() - w) / 1e6;
    return out;
  }
}

async function benchSize(n: number, dir: string): Promise<Record<string, number>> {
  // Rows are streamed, never all held: the CLI never has them as objects either, and millions of
  // live objects would slow every garbage collection of the phases being timed.
  const file = path.join(dir, `ledger-${n}.arrow`);
  await writeLedger(file, syntheticLedger(n), { validate: false });
  const contents = exactContents(syntheticLedger(n));

  const ledgerClock = new Clock();
  const ledger = await ledgerClock.time(() => readLedgerIndex(file, n + 1));

  // The Kafka adapter's share on top of the read itself: headers -> this run's seqs, for all four topics.
  // One topic's records in memory at a time, as in run.ts; only the extraction is timed.
  const ends = new Map([0, 1, 2, 3, 4, 5].map((p) => [p, Number.MAX_SAFE_INTEGER]));
  const kafkaClock = new Clock();
  let extracted = 0;
  for (const kind of ['raw', 'valid', 'dlq', 'clean'] as const) {
    const records = syntheticRecords(contents[kind].seqs, BENCH_RUN);
    extracted += await kafkaClock.time(
      () => extractRun(records, { kind, runId: BENCH_RUN, ends }).contents.seqs.length,
    );
  }

  const read = (c: (typeof contents)['raw']): LayerRead => ({ ok: true, contents: c });
  const layers: { layer: EventLayer; read: LayerRead }[] = [
    { layer: 'clickstream.raw', read: read(contents.raw) },
    { layer: 'events.valid', read: read(contents.valid) },
    { layer: 'events.dlq', read: read(contents.dlq) },
    { layer: 'events.clean', read: read(contents.clean) },
    { layer: 'clickhouse.valid', read: read(contents.valid) },
    { layer: 'clickhouse.dlq', read: read(contents.dlq) },
    { layer: 'clickhouse.clean', read: read(contents.clean) },
    { layer: 'iceberg.clean', read: read(contents.clean) },
  ];
  const coreClock = new Clock();
  const report = await coreClock.time(() =>
    reconcile({ ledger, manifestSends: n, runId: BENCH_RUN, layers }),
  );
  if (report.verdict !== 'exact')
    throw new Error(
      `bench run is not exact: ${JSON.stringify(report.layers.map((l) => [l.layer, l.verdict]))}`,
    );
  fs.rmSync(file);
  const clocks = [ledgerClock, kafkaClock, coreClock];
  const wall = clocks.reduce((s, c) => s + c.wall, 0);
  const cpu = clocks.reduce((s, c) => s + c.cpu, 0);
  const r = Math.round;
  return {
    events: n,
    layer_records: layers.reduce((s, l) => s + (l.read.ok ? l.read.contents.seqs.length : 0), 0),
    kafka_records_extracted: extracted,
    ledger_read_index_wall_ms: r(ledgerClock.wall),
    ledger_read_index_cpu_ms: r(ledgerClock.cpu),
    kafka_header_extract_wall_ms: r(kafkaClock.wall),
    kafka_header_extract_cpu_ms: r(kafkaClock.cpu),
    core_wall_ms: r(coreClock.wall),
    core_cpu_ms: r(coreClock.cpu),
    total_wall_ms_without_io: r(wall),
    total_cpu_ms_without_io: r(cpu),
    wall_ms_per_million: r((wall / n) * 1e6),
    cpu_ms_per_million: r((cpu / n) * 1e6),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // The machine is shared: the load says how much of it the benchmark had.
  const loadBefore = os.loadavg()[0];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconciler-bench-'));
  const sizes = [];
  try {
    for (const n of args.sizes) {
      const r = await benchSize(n, dir);
      process.stdout.write(`${JSON.stringify(r)}\n`);
      sizes.push(r);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const kafka =
    args.kafkaRecords > 0 ? await kafkaReadRate(args.bootstrap, args.kafkaRecords) : null;
  if (kafka !== null) process.stdout.write(`${JSON.stringify(kafka)}\n`);
  const result = {
    name: 'reconciler',
    command: `node apps/reconciler/dist/bench/main.js ${process.argv.slice(2).join(' ')}`.trim(),
    measured_at: new Date().toISOString(),
    load_average_1m: { before: loadBefore, after: os.loadavg()[0] },
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? '?',
      memory_gib: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    note: 'Ledger read = Arrow IPC file -> typed-array index, columnar (adapters/ledger.ts over the columnar reader of @clickstream/ledger); kafka_header_extract = InRecord headers -> seqs for 4 topics; core = all 8 event layers. The Kafka and ClickHouse reads themselves are I/O and measured separately (kafka_read).',
    sizes,
    kafka_read: kafka,
  };
  fs.mkdirSync(path.dirname(args.out), { recursive: true });
  fs.writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`written ${args.out}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
