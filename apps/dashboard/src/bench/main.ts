/**
 * Dashboard query benchmark (npx nx run dashboard:bench): the five main reads of libs/warehouse
 * on a throw-away database holding --rows clean events (a day of history), while the bench writes
 * --ingest-rate rows/s into that database like the loader does and the generator pushes
 * --pipeline-rate events/s through the live pipeline. Timed per query and per table layout: the
 * source tables keyed for exactness (events_clean ORDER BY run_id, event_id; events_dlq;
 * agg_windows), i.e. the layout before; the time-ordered copies and the product rollup the
 * dashboard reads (filled by the DDL's materialized views from the same inserts); and the copies
 * without the rollup (top products from events_by_time alone). Rounds alternate between layouts.
 * Writes results/bench/dashboard-queries.json; drops its database and deletes its pipeline run after.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import {
  parseOptions,
  usage as formatUsage,
  ConfigError,
  type OptionTable,
} from '@clickstream/cli-config';
import { PROBE_RUN_PREFIX } from '@clickstream/contracts';
import { repoRoot } from '@clickstream/test-support';
import {
  activeSessions,
  BACKFILL_DIR,
  createWarehouse,
  DASHBOARD_COPIES,
  DASHBOARD_TABLES,
  DDL_DIR,
  deadLettersByReason,
  funnel,
  PRODUCT_ROLLUP,
  revenuePerMinute,
  SOURCE_TABLES,
  topProducts,
  type DashboardRange,
  type Warehouse,
} from '@clickstream/warehouse';
import { liveRows, loadDeadLetters, loadHistory } from './data';

const intIn = (min: number, max: number) => {
  const expected = `an integer from ${min} to ${max}`;
  return z.coerce.number({ error: expected }).int(expected).min(min, expected).max(max, expected);
};
const Schema = z.object({
  rows: intIn(1_000, 100_000_000),
  historyHours: intIn(1, 720),
  iterations: intIn(1, 10_000),
  baselineIterations: intIn(0, 10_000),
  fullIterations: intIn(0, 1_000),
  ingestRate: intIn(0, 100_000),
  pipelineRate: intIn(0, 100_000),
  clickhouseUrl: z.url(),
  prometheusUrl: z.url(),
  out: z.string().min(1),
  keep: z.enum(['true', 'false'], 'true or false').transform((v) => v === 'true'),
  reuse: z
    .string()
    .regex(/^(|dash_bench_[0-9]+)$/, 'empty or the name of a kept dash_bench_<ms> database'),
});
const OPTIONS = {
  rows: { flag: '--rows', default: '6000000', help: 'clean events of history in the bench table' },
  historyHours: {
    flag: '--history-hours',
    default: '24',
    help: 'hours of event time the history spans, ending now',
  },
  iterations: {
    flag: '--iterations',
    default: '40',
    help: 'timed rounds of the five reads over the page default window on the copies the dashboard reads',
  },
  baselineIterations: {
    flag: '--baseline-iterations',
    default: '5',
    help: 'the same rounds on the source tables (the layout before; seconds per read, so fewer)',
  },
  fullIterations: {
    flag: '--full-iterations',
    default: '1',
    help: 'timed rounds over the whole table, per layout',
  },
  ingestRate: {
    flag: '--ingest-rate',
    default: '200',
    help: 'rows/s the bench inserts into its own tables meanwhile (event time now), so that their parts churn as in production',
  },
  pipelineRate: {
    flag: '--pipeline-rate',
    default: '2000',
    help: 'events/s the generator sends through the live pipeline meanwhile (0 = none)',
  },
  clickhouseUrl: {
    flag: '--clickhouse-url',
    env: 'CLICKHOUSE_URL',
    default: 'http://127.0.0.1:18123',
    help: 'ClickHouse HTTP URL',
  },
  prometheusUrl: {
    flag: '--prometheus-url',
    env: 'PROMETHEUS_URL',
    default: 'http://127.0.0.1:9090',
    help: 'Prometheus, to record the ingest rate seen',
  },
  out: {
    flag: '--out',
    default: 'results/bench/dashboard-queries.json',
    help: 'result file (relative to the repository root)',
  },
  reuse: {
    flag: '--reuse',
    default: '',
    help: 'time on an existing bench database (left by --keep or a killed run) instead of loading one',
  },
  keep: {
    flag: '--keep',
    boolean: true,
    default: 'false',
    help: 'keep the bench database (default: drop it)',
  },
} as const satisfies OptionTable;

/** The five reads of the page (revenue from agg_windows, the default), then the clean-table revenue for comparison. */
const QUERIES = [
  'funnel',
  'revenue',
  'top-products',
  'active-sessions',
  'dead-letters',
  'revenue-clean',
] as const;
type QueryName = (typeof QUERIES)[number];

interface Sample {
  layout: string;
  window: string;
  query: QueryName;
  ms: number;
}

const log = (msg: string, data: object = {}): void => {
  process.stderr.write(`${new Date().toISOString()} ${msg} ${JSON.stringify(data)}\n`);
};

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

type Tables = { clean: string; dlq: string; windows: string; rollup: string | null };

function reads(
  wh: Warehouse,
  t: Tables,
): Record<QueryName, (r: DashboardRange, atMs: number) => Promise<unknown>> {
  return {
    funnel: (r) => funnel(wh, { ...r, windowMs: 1_800_000 }, t.clean),
    revenue: (r) => revenuePerMinute(wh, r, 'windows', t.windows),
    'revenue-clean': (r) => revenuePerMinute(wh, r, 'clean', t.clean),
    'top-products': (r) => topProducts(wh, r, 10, t.clean, t.rollup),
    'active-sessions': (r, at) =>
      activeSessions(wh, { ...r, fromMs: at - 300_000, toMs: at }, t.clean),
    'dead-letters': (r, at) =>
      deadLettersByReason(wh, { ...r, fromMs: at - 3_600_000, toMs: at }, t.dlq),
  };
}

async function promRate(url: string, expr: string): Promise<number | null> {
  try {
    const res = await fetch(
      `${url}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`,
    );
    const body = (await res.json()) as { data?: { result?: { value: [number, string] }[] } };
    const v = Number(body.data?.result?.[0]?.value[1]);
    return Number.isFinite(v) ? v : null;
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseOptions(OPTIONS, Schema, process.argv.slice(2), process.env, {
      header: 'usage: node apps/dashboard/dist/bench/main.js [options]\n',
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`dashboard bench: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (parsed.help) {
    process.stdout.write(
      `${formatUsage(OPTIONS, 'usage: node apps/dashboard/dist/bench/main.js [options]\n').trimEnd()}\n`,
    );
    return 0;
  }
  const o = parsed.config;
  const root = repoRoot(__dirname);
  const stamp = Date.now();
  const database = o.reuse || `dash_bench_${stamp}`;
  const benchRun = `bench-dash-${database.slice('dash_bench_'.length)}`;
  const noop = (): void => undefined;
  const logger = { debug: noop, info: noop, warn: noop, error: noop };
  const wh = createWarehouse({ url: o.clickhouseUrl, database, logger, requestTimeoutMs: 600_000 });
  const shared = createWarehouse({
    url: o.clickhouseUrl,
    database: 'clickstream',
    logger,
    requestTimeoutMs: 600_000,
  });
  let generator: ChildProcess | undefined;
  let writer: NodeJS.Timeout | undefined;
  const genDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-bench-gen-'));
  const pipelineRun = `bench-ingest-${stamp}`;
  try {
    const now = Date.now();
    const history = { startMs: now - o.historyHours * 3_600_000, endMs: now - 60_000 };
    let loadS = 0;
    if (o.reuse) {
      // A database kept by an older bench may predate the copies or the rollup: create them and
      // fill each that is empty from its source's rows (as the loader does at start).
      await wh.applyDdl(DDL_DIR, BACKFILL_DIR);
      const [span] = await wh.query<{ a: number; b: number }>(
        'SELECT min(event_time) AS a, max(event_time) AS b FROM events_clean WHERE run_id = {run:String}',
        { run: benchRun },
      );
      history.startMs = Number(span?.a);
      history.endMs = Number(span?.b) + 1;
      log('reusing bench database', { database, history });
    } else {
      log('creating bench database', { database });
      await wh.applyDdl(DDL_DIR);
      const t0 = performance.now();
      await loadHistory(
        wh,
        'events_clean',
        { runId: benchRun, rows: o.rows, ...history, chunk: 1_000_000 },
        (n) => log('loaded', { rows: n }),
      );
      loadS = (performance.now() - t0) / 1000;
      await loadDeadLetters(wh, { runId: benchRun, rows: Math.round(o.rows / 200), ...history });
      // The windows job's output for the history: one row per (run, 10 s window, type), version 1.
      await wh.command(
        `INSERT INTO agg_windows (run_id, window_start, window_end, event_type, event_count, amount_cents_sum,
           distinct_sessions, version, is_final, emitted_at, kafka_partition, kafka_offset, kafka_timestamp, inserted_at)
         SELECT run_id, intDiv(event_time, 10000) * 10000 AS ws, ws + 10000, event_type, count(),
                sum(ifNull(amount_cents, 0)), uniqExact(session_id), 1, 1, 0, 0, 0, 0, 0
         FROM events_clean GROUP BY run_id, ws, event_type`,
      );
      const counted = await wh.query<{ n: number; parts: number }>(
        "SELECT sum(rows) AS n, count() AS parts FROM system.parts WHERE database = {db:String} AND table = 'events_clean' AND active",
        { db: database },
      );
      log('history loaded', { loadS, rows: counted[0] });
    }

    // Ingest meanwhile: the pipeline (generator -> gatekeeper -> Flink -> loader) and the bench's own writer.
    if (o.pipelineRate > 0) {
      generator = spawn(
        process.execPath,
        [
          path.join(root, 'apps/generator/dist/main.js'),
          ...['--run-id', pipelineRun, '--rate', String(o.pipelineRate), '--duration', '2h'],
          ...['--results-dir', genDir, '--log-level', 'warn'],
        ],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
    }
    let batch = 0;
    let written = 0;
    const perTick = Math.round(o.ingestRate / 4);
    if (perTick > 0) {
      const tick = (): void => {
        const rows = liveRows(benchRun, ++batch, perTick, Date.now());
        // Into the source only, like the loader: the view copies the block.
        wh.insertRows(SOURCE_TABLES.clean, rows).then(
          () => {
            written += rows.length;
            writer = setTimeout(tick, 250);
          },
          (err: unknown) => {
            log('live insert failed', { err: String(err) });
            writer = setTimeout(tick, 250);
          },
        );
      };
      tick();
    }
    log('ingest started; warming up 20 s', {
      pipelineRate: o.pipelineRate,
      ingestRate: o.ingestRate,
    });
    await new Promise((r) => setTimeout(r, 20_000));

    const samples: Sample[] = [];
    const layouts = {
      'source tables (before)': {
        fns: reads(wh, { ...SOURCE_TABLES, rollup: null }),
        rounds: o.baselineIterations,
      },
      'time-ordered copies and product rollup (dashboard)': {
        fns: reads(wh, { ...DASHBOARD_TABLES, rollup: PRODUCT_ROLLUP.table }),
        rounds: o.iterations,
      },
      // The same copies with top products read from events_by_time alone: the rollup's A/B.
      'time-ordered copies, no rollup': {
        fns: reads(wh, { ...DASHBOARD_TABLES, rollup: null }),
        rounds: o.iterations,
      },
    };
    const windowOf = (name: string, at: number): DashboardRange =>
      name === 'page-default-15m'
        ? { fromMs: at - 900_000, toMs: at, excludeRunPrefix: PROBE_RUN_PREFIX }
        : { fromMs: history.startMs - 1, toMs: at, excludeRunPrefix: PROBE_RUN_PREFIX };
    const timeRound = async (
      layout: string,
      fns: Record<QueryName, (r: DashboardRange, at: number) => Promise<unknown>>,
      windowName: string,
      record: boolean,
    ): Promise<void> => {
      for (const q of QUERIES) {
        const at = Date.now();
        const started = performance.now();
        await fns[q](windowOf(windowName, at), at);
        if (record)
          samples.push({ layout, window: windowName, query: q, ms: performance.now() - started });
      }
    };
    const benchStart = Date.now();
    const loadavgAtStart = os.loadavg();
    // Rounds alternate between the layouts, so that each sees the same load over the run.
    for (const [layout, { fns, rounds }] of Object.entries(layouts))
      if (rounds > 0) await timeRound(layout, fns, 'page-default-15m', false); // warm-up
    const mostRounds = Math.max(...Object.values(layouts).map((l) => l.rounds));
    for (let i = 0; i < mostRounds; i++)
      for (const [layout, { fns, rounds }] of Object.entries(layouts))
        if (i < rounds) await timeRound(layout, fns, 'page-default-15m', true);
    log('layouts timed', { layouts: Object.keys(layouts), window: 'page-default-15m' });
    for (const [layout, { fns, rounds }] of Object.entries(layouts))
      for (let i = 0; i < (rounds === 0 ? 0 : o.fullIterations); i++)
        await timeRound(layout, fns, 'whole-table', true);
    const benchS = (Date.now() - benchStart) / 1000;
    const ingestSeen = {
      gatekeeperInPerS: await promRate(
        o.prometheusUrl,
        'sum(rate(gatekeeper_records_in_total[1m]))',
      ),
      loaderCleanRowsPerS: await promRate(
        o.prometheusUrl,
        'sum(rate(loader_rows_inserted_total{table="events_clean"}[1m]))',
      ),
      benchWriterRowsPerS: written / ((Date.now() - benchStart) / 1000 + 20),
    };
    const finalRows = await wh.query<{ n: number }>('SELECT count() AS n FROM events_clean');

    const summary = [];
    for (const layout of Object.keys(layouts))
      for (const window of ['page-default-15m', 'whole-table'])
        for (const q of QUERIES) {
          const ms = samples
            .filter((s) => s.layout === layout && s.window === window && s.query === q)
            .map((s) => s.ms)
            .sort((a, b) => a - b);
          if (ms.length === 0) continue;
          summary.push({
            layout,
            window,
            query: q,
            n: ms.length,
            p50: +percentile(ms, 50).toFixed(1),
            p99: +percentile(ms, 99).toFixed(1),
            min: +(ms[0] as number).toFixed(1),
            max: +(ms[ms.length - 1] as number).toFixed(1),
          });
        }
    const result = {
      benchmark: 'dashboard-queries',
      at: new Date().toISOString(),
      command: `node apps/dashboard/dist/bench/main.js ${process.argv.slice(2).join(' ')}`.trim(),
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model,
        loadavgAtStart,
        loadavgAtEnd: os.loadavg(),
      },
      clickhouse: (await wh.query<{ v: string }>('SELECT version() AS v'))[0]?.v,
      rows: {
        history: o.rows,
        atEnd: Number(finalRows[0]?.n),
        historyHours: o.historyHours,
        deadLetters: Math.round(o.rows / 200),
      },
      load: { historySecondsIncludingViews: +loadS.toFixed(1) },
      ingest: {
        pipelineRateTarget: o.pipelineRate,
        benchWriterRateTarget: o.ingestRate,
        seen: ingestSeen,
      },
      timedSeconds: benchS,
      note: 'client-side wall time per read (HTTP + JSON included), nearest-rank percentiles; p99 of n < 100 samples is the max or near it',
      summary,
    };
    const out = path.resolve(root, o.out);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `| layout | window | query | n | p50 ms | p99 ms |\n|---|---|---|---|---|---|\n`,
    );
    for (const s of summary)
      process.stdout.write(
        `| ${s.layout} | ${s.window} | ${s.query} | ${s.n} | ${s.p50} | ${s.p99} |\n`,
      );
    log('written', { out, ingestSeen });
    return 0;
  } finally {
    if (writer) clearTimeout(writer);
    if (generator && generator.exitCode === null) {
      generator.kill('SIGTERM');
      await new Promise((r) => generator?.once('exit', r));
    }
    if (!o.keep) {
      await wh.command(`DROP DATABASE IF EXISTS ${database}`);
      log('dropped bench database', { database });
    }
    if (o.pipelineRate > 0) {
      // Let the loader finish the run's last events, then delete them: they live in the shared
      // tables (mutations; the Kafka topics keep them, as they keep every run).
      let last = -1;
      for (let waited = 0; waited < 180_000; waited += 10_000) {
        await new Promise((r) => setTimeout(r, 10_000));
        const n = Number(
          (
            await shared.query<{ n: number }>(
              'SELECT count() AS n FROM events_clean WHERE run_id = {run:String}',
              {
                run: pipelineRun,
              },
            )
          )[0]?.n,
        );
        if (n === last) break;
        last = n;
      }
      // The pipeline's rows of the ingest run live in the shared tables: delete them (mutations).
      for (const table of [
        'events_valid',
        'events_clean',
        'events_dlq',
        'events_late',
        'agg_windows',
        'agg_sessions',
        ...Object.values(DASHBOARD_COPIES).map((c) => c.table),
        PRODUCT_ROLLUP.table,
      ])
        await shared.command(`ALTER TABLE ${table} DELETE WHERE run_id = {run:String}`, {
          run: pipelineRun,
        });
      log('deleted the ingest run from the shared tables', { run: pipelineRun });
    }
    fs.rmSync(genDir, { recursive: true, force: true });
    await Promise.all([wh.close(), shared.close()]);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `dashboard bench: fatal: ${err instanceof Error ? err.stack : String(err)}\n`,
    );
    process.exit(1);
  },
);
