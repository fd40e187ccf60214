/**
 * Benchmark (not a test): encode and decode+validate events per second on one core, written to
 * results/bench/contracts-codec.json. Run with `npx nx run contracts:bench` from the workspace root.
 */
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  CURRENCIES,
  EVENT_TYPES,
  decodeEvent,
  encodeEvent,
  type ClickEvent,
  type SchemaVersion,
} from '../src/index';

const EVENTS = 20_000;
const ROUNDS = 7;
const ROUND_MS = 1_000;
const NOW = Date.now();
const OUT = path.resolve(process.argv[2] ?? 'results/bench/contracts-codec.json');

/** A realistic mix: every type, with the fields its rules require. */
function event(i: number): ClickEvent {
  const type = EVENT_TYPES[i % EVENT_TYPES.length] ?? 'page_view';
  const product = type === 'product_view' || type === 'add_to_cart' || type === 'remove_from_cart';
  const cart = type === 'add_to_cart' || type === 'remove_from_cart';
  const payment =
    type === 'payment_succeeded' || type === 'payment_failed' || type === 'checkout_started';
  return {
    event_id: randomUUID(),
    seq: i,
    run_id: 'bench-run',
    event_type: type,
    event_time: NOW - (i % 3000),
    session_id: `session-${i % 977}`,
    user_id: i % 3 === 0 ? null : `user-${i % 5003}`,
    page: `/catalogue/lighting/page-${i % 40}`,
    product_id: product ? `sku-${i % 1200}` : null,
    quantity: cart ? 1 + (i % 4) : null,
    amount_cents: payment ? 1999 + (i % 50_000) : null,
    currency: payment ? (CURRENCIES[i % CURRENCIES.length] ?? 'EUR') : null,
    device: 'mobile',
    ingest_time: null,
  };
}

interface Rate {
  /** Per second of process CPU time (user + system, GC threads included): what one core does, even on a busy machine. */
  events_per_cpu_s_median: number;
  events_per_cpu_s_min: number;
  events_per_cpu_s_max: number;
  cpu_ns_per_event_median: number;
  /** Per wall-clock second: lower than the CPU figure when other processes share the core. */
  events_per_wall_s_median: number;
}

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Runs `op` over the inputs for ROUND_MS per round; the median round is the figure. */
function measure<T>(inputs: readonly T[], op: (input: T) => boolean): Rate {
  for (let i = 0; i < inputs.length; i++) op(inputs[i] as T); // warm-up: let the JIT settle
  const cpuRates: number[] = [];
  const wallRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let done = 0;
    let ok = 0;
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    const deadline = start + BigInt(ROUND_MS) * 1_000_000n;
    let now = start;
    while (now < deadline) {
      for (let i = 0; i < 1000; i++) if (op(inputs[(done + i) % inputs.length] as T)) ok++;
      done += 1000;
      now = process.hrtime.bigint();
    }
    const cpu = process.cpuUsage(cpuStart);
    if (ok !== done) throw new Error(`only ${ok} of ${done} operations succeeded`);
    cpuRates.push(done / ((cpu.user + cpu.system) / 1e6));
    wallRates.push(done / (Number(now - start) / 1e9));
  }
  const cpuMedian = median(cpuRates);
  return {
    events_per_cpu_s_median: Math.round(cpuMedian),
    events_per_cpu_s_min: Math.round(Math.min(...cpuRates)),
    events_per_cpu_s_max: Math.round(Math.max(...cpuRates)),
    cpu_ns_per_event_median: Math.round(1e9 / cpuMedian),
    events_per_wall_s_median: Math.round(median(wallRates)),
  };
}

function main(): void {
  const events = Array.from({ length: EVENTS }, (_, i) => event(i));
  const encoded = (v: SchemaVersion): Buffer[] => events.map((e) => encodeEvent(e, v));
  const v2 = encoded(2);
  const v1 = encoded(1);
  const loadBefore = os.loadavg();
  const results = {
    encode_v2: measure(events, (e) => encodeEvent(e).length > 0),
    decode_validate_v2: measure(v2, (b) => decodeEvent(b, { ingestTime: NOW }).ok),
    decode_validate_v1: measure(v1, (b) => decodeEvent(b, { ingestTime: NOW }).ok),
  };
  const report = {
    benchmark: 'contracts-codec',
    command: 'npx nx run contracts:bench',
    generated_at: new Date().toISOString(),
    node: process.version,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores_on_machine: os.cpus().length,
    threads_used: 1,
    load_average_1m_before: loadBefore[0],
    load_average_1m_after: os.loadavg()[0],
    distinct_events: EVENTS,
    mean_encoded_bytes: Math.round(v2.reduce((n, b) => n + b.length, 0) / v2.length),
    rounds: ROUNDS,
    round_ms: ROUND_MS,
    results,
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
}

main();
