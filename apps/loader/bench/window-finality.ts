/**
 * Window finality benchmark (issue #12): a seeded generator run at a fixed rate through the live
 * pipeline (tools/pipeline up: gatekeeper, Flink clean + windows jobs, loader), and for every
 * (window_start, event_type) of the run, the time from the window's end to its final row being
 * queryable in ClickHouse agg_windows (polled with FINAL). Windows that end in the last seconds of
 * the load are reported apart: after the load stops, finality waits for the watermark to move on
 * idle partitions. With --observe <run-id> no load is started: an ongoing run (e.g. the soak of
 * tools/soak-pages at 1,000 events/s) is watched for --seconds instead; windows already final at
 * the first poll are left out. Writes results/bench/window-finality.json (or --out).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_LATENESS_MS, WINDOW_SIZE_MS } from '@clickstream/contracts';
import { createWarehouse, readWindowRows } from '@clickstream/warehouse';
import { assertAlive, sleep, startChild, summary } from './bench-lib';

const { values: a } = parseArgs({
  options: {
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '120' },
    seed: { type: 'string', default: '1212' },
    observe: { type: 'string' },
    'poll-ms': { type: 'string', default: '250' },
    'settle-seconds': { type: 'string', default: '180' },
    'clickhouse-url': {
      type: 'string',
      default: process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123',
    },
    out: {
      type: 'string',
      default: join(__dirname, '..', '..', '..', '..', 'results', 'bench', 'window-finality.json'),
    },
  },
});
const rate = Number(a.rate);
const seconds = Number(a.seconds);
const pollMs = Number(a['poll-ms']);
const settle = Number(a['settle-seconds']);
if (![rate, seconds, pollMs, settle].every((n) => Number.isFinite(n) && n > 0))
  throw new Error(`bad arguments: ${JSON.stringify(a)} (expected positive numbers)`);

const root = join(__dirname, '..', '..', '..', '..');
const noop = (): void => undefined;
const wh = createWarehouse({
  url: a['clickhouse-url'],
  database: 'clickstream',
  logger: { debug: noop, info: noop, warn: noop, error: noop },
});

async function main(): Promise<void> {
  const observed = a.observe;
  const runId = observed ?? `bench-windows-${Date.now()}`;
  const startedAt = Date.now();
  const gen =
    observed === undefined
      ? startChild('generator', join(root, 'apps/generator/dist/main.js'), [
          ...['--seed', a.seed as string, '--rate', String(rate), '--duration', `${seconds}s`],
          ...['--run-id', runId, '--max-dup-delay', '15s', '--log-level', 'warn'],
        ])
      : null;
  const finalSeen = new Map<string, { windowEnd: number; seenAt: number }>();
  const finalBefore = new Set<string>();
  let loadEndedAt: number | null = null;
  let keys = 0;
  let polls = 0;
  const deadline = startedAt + (seconds + (observed === undefined ? settle : 0)) * 1000;
  while (Date.now() < deadline) {
    if (gen !== null && loadEndedAt === null && gen.proc.exitCode !== null) {
      if (gen.proc.exitCode !== 0) assertAlive([gen]);
      loadEndedAt = Date.now();
    }
    const read = await readWindowRows(wh, runId).catch(() => null);
    const now = Date.now();
    if (read !== null) {
      keys = read.rows.length;
      for (const r of read.rows) {
        const key = `${r.window_start}|${r.event_type}`;
        if (!r.is_final || finalSeen.has(key) || finalBefore.has(key)) continue;
        // Rows final before the first poll have no first-seen time: left out.
        if (polls === 0) finalBefore.add(key);
        else finalSeen.set(key, { windowEnd: r.window_end, seenAt: now });
      }
      polls++;
      if (loadEndedAt !== null && keys > 0 && finalSeen.size + finalBefore.size === keys) break;
    }
    await sleep(pollMs);
  }
  const endOfLoad = loadEndedAt ?? Date.now();
  // Steady state: windows that could be final while the load still ran (end + L + 10 s before it
  // stopped, or before the observation ended).
  const steadyCut = endOfLoad - DEFAULT_LATENESS_MS - 10_000;
  const steady: number[] = [];
  const tail: number[] = [];
  for (const { windowEnd, seenAt } of finalSeen.values())
    (windowEnd <= steadyCut ? steady : tail).push(seenAt - windowEnd);
  const result = {
    bench: 'window-finality',
    what: 'ms from window_end to the final row being queryable in ClickHouse agg_windows (FINAL, polled)',
    run_id: runId,
    observed_run: observed !== undefined,
    rate,
    seconds,
    poll_ms: pollMs,
    lateness_ms: DEFAULT_LATENESS_MS,
    window_ms: WINDOW_SIZE_MS,
    keys_seen: keys,
    keys_final_measured: finalSeen.size,
    keys_final_before_observing: finalBefore.size,
    steady: summary(steady),
    after_load_stopped: summary(tail),
    loadavg_1m: loadavg()[0],
    started_at: new Date(startedAt).toISOString(),
    command:
      observed === undefined
        ? `npx nx run loader:bench-windows -- --rate ${rate} --seconds ${seconds}`
        : `npx nx run loader:bench-windows -- --observe ${observed} --seconds ${seconds}`,
  };
  mkdirSync(dirname(a.out as string), { recursive: true });
  writeFileSync(a.out as string, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`window-finality: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => void wh.close());
