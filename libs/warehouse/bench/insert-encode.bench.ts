/**
 * Benchmark (not a test): the client-side cost of an INSERT body for events_valid, RowBinary (what
 * insertRows sends) against JSONEachRow (what it sent before: one JSON.stringify per row plus a
 * newline, as @clickhouse/client encodes it), in CPU microseconds per row on one core. Rows are the
 * loader's: toEventRow of a realistic event mix. Written to results/bench/warehouse-insert-encode.json.
 * Run with `npx nx run warehouse:bench` from the workspace root; needs no server (the columns are
 * read from the DDL file).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  encodeRowBinaryInsert,
  rowBinaryColumns,
  type DescribedColumn,
} from '../src/row-binary-insert';
import { toEventRow } from '../src/rows';
import type { ClickEvent } from '@clickstream/contracts';

const ROWS = 5_000;
const ROUNDS = 9;
const ROUND_MS = 1_000;
const OUT = path.resolve(process.argv[2] ?? 'results/bench/warehouse-insert-encode.json');
const NOW = 1_796_587_724_365;

/** events_valid's columns as DESCRIBE TABLE gives them, read from its CREATE TABLE. */
function describedColumns(): DescribedColumn[] {
  // From the workspace root, where the nx target runs it (src/ddl's DDL_DIR is relative to dist/).
  const ddl = fs.readFileSync(path.resolve('infra/clickhouse/ddl/001_events_valid.sql'), 'utf8');
  const create = ddl.slice(ddl.indexOf('CREATE TABLE')); // after the comments, which hold parentheses too
  const body = /\(\s*([\s\S]*?)\n\)/.exec(create)?.[1] ?? '';
  return body
    .split(',\n')
    .map((line) => /^\s*(\w+)\s+(.+?)\s*$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[1] as string, type: m[2] as string, default_type: '' }));
}

function rows(): object[] {
  const types: ClickEvent['event_type'][] = [
    'page_view',
    'product_view',
    'add_to_cart',
    'checkout_started',
    'payment_succeeded',
  ];
  return Array.from({ length: ROWS }, (_, i) => {
    const type = types[i % types.length] ?? 'page_view';
    const paid = type === 'payment_succeeded';
    return toEventRow(
      {
        event_id: `0a1b2c3d-0000-4000-8000-${String(i).padStart(12, '0')}`,
        seq: i,
        run_id: 'profile-3000-20261206T201616Z',
        event_type: type,
        event_time: NOW - (i % 3000),
        session_id: `session-${i % 977}`,
        user_id: i % 3 === 0 ? null : `user-${i % 5003}`,
        page: `/catalogue/lighting/page-${i % 40}`,
        product_id: type === 'product_view' || type === 'add_to_cart' ? `sku-${i % 1200}` : null,
        quantity: type === 'add_to_cart' ? 1 + (i % 4) : null,
        amount_cents: paid ? 1999 + (i % 50_000) : null,
        currency: paid ? 'EUR' : null,
        device: 'mobile',
        ingest_time: NOW - (i % 3000) + 40,
      },
      {
        topic: 'events.valid',
        partition: i % 6,
        offset: 1_000_000 + i,
        timestamp: NOW,
        headerSeq: i,
      },
      NOW + 500,
    );
  });
}

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** CPU µs per row of each round: whole batches encoded for ROUND_MS of wall time. */
function measure(encode: () => number): { us_per_row: number[]; bytes_per_row: number } {
  let bytes = 0;
  for (let i = 0; i < 20; i++) bytes = encode(); // warm-up
  const us: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const cpu0 = process.cpuUsage();
    const end = Date.now() + ROUND_MS;
    let batches = 0;
    while (Date.now() < end) {
      encode();
      batches++;
    }
    const cpu = process.cpuUsage(cpu0);
    us.push((cpu.user + cpu.system) / (batches * ROWS));
  }
  return { us_per_row: us, bytes_per_row: bytes / ROWS };
}

const data = rows();
const columns = rowBinaryColumns('events_valid', describedColumns());
const results: Record<string, { us_per_row: number[]; bytes_per_row: number }> = {};
// Alternated, so that a slower stretch of the machine does not favour either.
for (let pass = 0; pass < 2; pass++) {
  for (const [name, encode] of [
    ['rowbinary', () => encodeRowBinaryInsert('events_valid', columns, data).body.length],
    ['jsoneachrow', () => Buffer.byteLength(data.map((r) => JSON.stringify(r) + '\n').join(''))],
  ] as const) {
    const m = measure(encode);
    const prev = results[name];
    results[name] = {
      us_per_row: [...(prev?.us_per_row ?? []), ...m.us_per_row],
      bytes_per_row: m.bytes_per_row,
    };
  }
}
const summary = Object.fromEntries(
  Object.entries(results).map(([name, r]) => [
    name,
    {
      cpu_us_per_row_median: Number(median(r.us_per_row).toFixed(3)),
      cpu_us_per_row_min: Number(Math.min(...r.us_per_row).toFixed(3)),
      cpu_us_per_row_max: Number(Math.max(...r.us_per_row).toFixed(3)),
      bytes_per_row: Number(r.bytes_per_row.toFixed(1)),
    },
  ]),
);
const out = {
  measurement: 'warehouse-insert-encode',
  measured_at: new Date().toISOString(),
  command: 'npx nx run warehouse:bench',
  rows_per_batch: ROWS,
  rounds: ROUNDS * 2,
  load_average_1m: os.loadavg()[0],
  node: process.version,
  ...summary,
};
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
