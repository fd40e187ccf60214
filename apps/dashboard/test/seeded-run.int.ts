/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * A seeded generator run through the live pipeline (tools/pipeline up), then the built dashboard
 * (child process, read-only user) against it:
 * - its API's funnel and revenue equal what the ledger implies (expectedFromLedger);
 * - headless Chromium (Debian's, driven by puppeteer-core) loads the page, and every panel shows
 *   the numbers that direct SQL (written here independently, with FINAL, on the source tables,
 *   so it also checks the time-ordered copies the dashboard reads) and Prometheus give for the
 *   same window; a screenshot goes to results/tmp/dashboard/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import puppeteer, { type Browser } from 'puppeteer-core';
import { readLedger, runPaths } from '@clickstream/ledger';
import {
  createWarehouse,
  DASHBOARD_TABLES,
  revenuePerMinute,
  type Warehouse,
} from '@clickstream/warehouse';
import { repoRoot } from '@clickstream/test-support';
import { PROBE_RUN_PREFIX, type LedgerRow } from '@clickstream/contracts';
import { expectedFromLedger } from '../src/expected';
import { CLICKHOUSE_URL, PROMETHEUS_URL, quietLogger } from './helpers';

const ROOT = repoRoot(__dirname);
const WINDOW_S = 1800;
const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => fs.existsSync(p));

function runGenerator(runId: string, resultsDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'apps/generator/dist/main.js'),
        ...[
          '--seed',
          '1414',
          '--run-id',
          runId,
          '--count',
          '3000',
          '--rate',
          '1000',
          '--sessions',
          '50',
        ],
        ...['--max-dup-delay', '5s', '--results-dir', resultsDir, '--log-level', 'warn'],
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`generator exited ${code}`)),
    );
  });
}

/** Starts the built dashboard on a free port and resolves with its port once it logs that it listens. */
function startDashboard(): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'apps/dashboard/dist/main.js'),
        '--port',
        '0',
        '--clickhouse-url',
        CLICKHOUSE_URL,
        '--prometheus-url',
        PROMETHEUS_URL,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const timer = setTimeout(
      () => reject(new Error('dashboard did not start within 20 s')),
      20_000,
    );
    child.on('exit', (code) => reject(new Error(`dashboard exited ${code}`)));
    readline
      .createInterface({ input: child.stdout as NodeJS.ReadableStream })
      .on('line', (line) => {
        const msg = JSON.parse(line) as { msg?: string; port?: number };
        if (msg.msg === 'dashboard listening' && msg.port) {
          clearTimeout(timer);
          resolve({ child, port: msg.port });
        }
      });
  });
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

describe('a seeded run on the dashboard', () => {
  const runId = `dash-it-${Date.now()}`;
  const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-it-'));
  let admin: Warehouse;
  let ledger: LedgerRow[];
  let dashboard: { child: ChildProcess; port: number };
  let fromMs: number;
  let toMs: number;
  let atMs: number;
  let base: string;

  beforeAll(async () => {
    admin = createWarehouse({ url: CLICKHOUSE_URL, database: 'clickstream', logger: quietLogger });
    await runGenerator(runId, resultsDir);
    ledger = await readLedger(runPaths(resultsDir, runId).ledger);
    const valid = ledger.filter((r) => r.expected_fate === 'valid' && r.delivery === 'acked');
    expect(valid.length).toBeGreaterThan(2000);
    const distinct = new Set(valid.map((r) => r.event_id)).size;
    const times = valid.map((r) => r.event_time as number);
    fromMs = Math.min(...times);
    toMs = Math.max(...times) + 1;
    atMs = toMs; // "now" for the page: just after the run's last event
    // The pipeline catches up within seconds; the clean table holds every distinct valid event once,
    // and so does its time-ordered copy that the dashboard reads (its view fires in the same INSERT).
    const deadline = Date.now() + 300_000; // a loaded 2-core machine lags by minutes
    let seen = 0;
    while (Date.now() < deadline) {
      const rows = await admin.query<{ n: number }>(
        `SELECT uniqExact(event_id) AS n FROM ${DASHBOARD_TABLES.clean} WHERE run_id = {run:String}`,
        { run: runId },
      );
      seen = Number(rows[0]?.n);
      if (seen >= distinct) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(seen).toBe(distinct);
    const dlqWanted = ledger.filter(
      (r) => r.expected_fate === 'poison' && r.delivery === 'acked',
    ).length;
    while (Date.now() < deadline) {
      const rows = await admin.query<{ n: number }>(
        'SELECT count() AS n FROM events_dlq FINAL WHERE run_id = {run:String}',
        {
          run: runId,
        },
      );
      if (Number(rows[0]?.n) >= dlqWanted) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    // Prometheus answers for a past instant only once it has scraped past it (every 5 s): then the
    // page and the direct query below see the same samples.
    while (Date.now() < atMs + 15_000) await new Promise((r) => setTimeout(r, 500));
    dashboard = await startDashboard();
    base = `http://127.0.0.1:${dashboard.port}`;
  });

  afterAll(async () => {
    dashboard?.child.kill('SIGTERM');
    await admin?.close();
    fs.rmSync(resultsDir, { recursive: true, force: true });
  });

  const qs = (): string => `run=${runId}&from=${fromMs}&to=${toMs}&at=${atMs}&window=${WINDOW_S}`;

  it('shows the funnel and the revenue the ledger implies', async () => {
    const expected = expectedFromLedger(ledger, { fromMs, toMs, windowMs: WINDOW_S * 1000 });
    expect(expected.uncertain).toBe(0);
    expect(expected.funnel[0]).toBeGreaterThan(0);
    expect(expected.revenue.length).toBeGreaterThan(0);
    const f = await getJson<{ data: { steps: { sessions: number }[] } }>(
      `${base}/api/funnel?${qs()}`,
    );
    expect(f.data.steps.map((s) => s.sessions)).toEqual(expected.funnel);
    // The clean-table revenue (--revenue-source clean) counts late payments too.
    const clean = await revenuePerMinute(
      admin,
      { fromMs, toMs, runId, excludeRunPrefix: PROBE_RUN_PREFIX },
      'clean',
    );
    expect(clean).toEqual(expected.revenue);
  });

  it('shows the revenue per minute of the on-time payments the ledger implies (agg_windows, the default)', async () => {
    // On time or late is decided by each event's recorded ingest time (the raw record's broker
    // timestamp), as the windows job and the reconciler decide it.
    const ingest = new Map(
      (
        await admin.query<{ id: string; t: number }>(
          'SELECT event_id AS id, any(ingest_time) AS t FROM events_clean WHERE run_id = {run:String} GROUP BY id',
          { run: runId },
        )
      ).map((r) => [r.id, Number(r.t)]),
    );
    const expected = expectedFromLedger(ledger, {
      fromMs,
      toMs,
      windowMs: WINDOW_S * 1000,
      ingestTimeOf: (_run, id) => ingest.get(id),
    });
    expect(expected.revenueOnTime.length).toBeGreaterThan(0);
    // Windows are emitted as the watermark passes them (the probe keeps the stream moving).
    const deadline = Date.now() + 180_000;
    type Revenue = { data: { source: string; minutes: unknown[] } };
    let shown: Revenue | null = null;
    while (Date.now() < deadline) {
      const now: Revenue = await getJson(`${base}/api/revenue?${qs()}`);
      shown = now;
      if (JSON.stringify(now.data.minutes) === JSON.stringify(expected.revenueOnTime)) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    expect(shown?.data.source).toBe('windows');
    expect(shown?.data.minutes).toEqual(expected.revenueOnTime);
  });

  it('answers a bad parameter with a 400 naming it', async () => {
    const res = await fetch(`${base}/api/top-products?${qs()}&limit=0`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'bad_parameter',
      parameter: 'limit',
      got: '0',
    });
  });

  describe('in headless Chromium', () => {
    let browser: Browser;

    beforeAll(async () => {
      if (!CHROMIUM)
        throw new Error('chromium not installed (apt package chromium; tools/setup installs it)');
      const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-chromium-'));
      browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        headless: false, // the flags below make it headless; puppeteer adds nothing of its own
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
          `--user-data-dir=${profile}`,
        ],
      });
    });

    afterAll(async () => {
      await browser?.close();
    });

    it('shows on every panel the numbers direct SQL and Prometheus give', async () => {
      const page = await browser.newPage();
      await page.setViewport({ width: 1400, height: 1500 });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
      await page.goto(`${base}/?${qs()}`, { waitUntil: 'load' });
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('.panel')].every(
            (p) => (p as HTMLElement).dataset.state !== 'loading',
          ),
        { timeout: 30_000 },
      );
      const shown = await page.evaluate(() => {
        const values = (testid: string, col: number): string[] =>
          [...document.querySelectorAll(`[data-testid="${testid}"] tbody tr`)]
            .map((tr) => (tr.children[col] as HTMLElement | undefined)?.dataset.value)
            .filter((v): v is string => v !== undefined);
        const one = (testid: string): string | undefined =>
          (document.querySelector(`[data-testid="${testid}"]`) as HTMLElement | null)?.dataset
            .value;
        return {
          states: [...document.querySelectorAll('.panel')].map(
            (p) => `${p.id}:${(p as HTMLElement).dataset.state}`,
          ),
          funnel: values('funnel', 1).map(Number),
          revenueMinutes: values('revenue', 0).map(Number),
          revenueCents: values('revenue', 1).map(Number),
          payments: values('revenue', 2).map(Number),
          revenueTotal: Number(one('revenue-total')),
          viewsIds: values('top-views', 0),
          views: values('top-views', 1).map(Number),
          cartIds: values('top-carts', 0),
          carts: values('top-carts', 1).map(Number),
          active: Number(one('active-sessions')),
          activeEvents: Number(one('active-events')),
          dlqReasons: values('dead-letters', 0),
          dlq: values('dead-letters', 1).map(Number),
          layers: values('layers', 3),
          canvases: document.querySelectorAll('canvas').length,
          chartJs: typeof (window as unknown as { Chart?: unknown }).Chart,
        };
      });
      // Under results/tmp (ignored): a test run must not change a committed file. To refresh the
      // committed capture, copy it to results/dashboard/seeded-run.png (apps/dashboard/README.md).
      fs.mkdirSync(path.join(ROOT, 'results/tmp/dashboard'), { recursive: true });
      await page.screenshot({
        path: path.join(ROOT, 'results/tmp/dashboard/seeded-run.png'),
        fullPage: true,
      });
      expect(errors).toEqual([]);
      expect(shown.chartJs).toBe('function');
      expect(shown.canvases).toBe(5);
      for (const s of shown.states) expect(s).toMatch(/:ready$/);

      // Direct SQL, written independently of libs/warehouse: FINAL instead of uniqExact/GROUP BY.
      const p = { run: runId, from: fromMs, to: toMs };
      const funnelRows = await admin.query<{ level: number; n: number }>(
        `SELECT level, count() AS n FROM (
           SELECT windowFunnel(${WINDOW_S * 1000 * 5 + 4})(toUInt32((event_time - {from:Int64}) * 5 + s), s = 0, s = 1, s = 2, s = 3, s = 4) AS level
           FROM (SELECT session_id, event_time, multiIf(event_type = 'page_view', 0, event_type = 'product_view', 1,
                   event_type = 'add_to_cart', 2, event_type = 'checkout_started', 3, event_type = 'payment_succeeded', 4, -1) AS s
                 FROM events_clean FINAL WHERE run_id = {run:String} AND event_time >= {from:Int64} AND event_time < {to:Int64})
           WHERE s >= 0 GROUP BY session_id) GROUP BY level`,
        p,
      );
      const atLeast = [1, 2, 3, 4, 5].map((k) =>
        funnelRows.filter((r) => Number(r.level) >= k).reduce((a, r) => a + Number(r.n), 0),
      );
      expect(shown.funnel).toEqual(atLeast);

      const revenue = await admin.query<{ m: number; cents: number; n: number }>(
        `SELECT intDiv(window_start, 60000) * 60000 AS m, sum(amount_cents_sum) AS cents, sum(event_count) AS n
         FROM agg_windows FINAL WHERE run_id = {run:String} AND event_type = 'payment_succeeded'
           AND window_end > {from:Int64} AND window_start < {to:Int64} GROUP BY m ORDER BY m`,
        p,
      );
      expect(shown.revenueMinutes).toEqual(revenue.map((r) => Number(r.m)));
      expect(shown.revenueCents).toEqual(revenue.map((r) => Number(r.cents)));
      expect(shown.payments).toEqual(revenue.map((r) => Number(r.n)));
      expect(shown.revenueTotal).toBe(revenue.reduce((a, r) => a + Number(r.cents), 0));

      const top = async (type: string) =>
        admin.query<{ pid: string; n: number }>(
          `SELECT product_id AS pid, count() AS n FROM events_clean FINAL
           WHERE run_id = {run:String} AND event_type = {type:String} AND event_time >= {from:Int64} AND event_time < {to:Int64}
             AND isNotNull(product_id)
           GROUP BY pid ORDER BY n DESC, pid LIMIT 10`,
          { ...p, type },
        );
      const views = await top('product_view');
      const carts = await top('add_to_cart');
      expect(views.length).toBeGreaterThan(0);
      expect(shown.viewsIds).toEqual(views.map((r) => r.pid));
      expect(shown.views).toEqual(views.map((r) => Number(r.n)));
      expect(shown.cartIds).toEqual(carts.map((r) => r.pid));
      expect(shown.carts).toEqual(carts.map((r) => Number(r.n)));

      const active = await admin.query<{ s: number; e: number }>(
        `SELECT uniqExact(session_id) AS s, count() AS e FROM events_clean FINAL
         WHERE run_id = {run:String} AND event_time >= {from:Int64} AND event_time < {to:Int64}`,
        { run: runId, from: atMs - 300_000, to: atMs },
      );
      expect(shown.active).toBe(Number(active[0]?.s));
      expect(shown.activeEvents).toBe(Number(active[0]?.e));
      expect(shown.active).toBeGreaterThan(0);

      const dlq = await admin.query<{ reason: string; n: number }>(
        `SELECT reason, count() AS n FROM events_dlq FINAL
         WHERE run_id = {run:String} AND kafka_timestamp >= {from:Int64} AND kafka_timestamp < {to:Int64}
         GROUP BY reason ORDER BY n DESC, reason`,
        { run: runId, from: atMs - 3_600_000, to: atMs },
      );
      expect(dlq.length).toBeGreaterThan(0);
      expect(shown.dlqReasons).toEqual(dlq.map((r) => r.reason));
      expect(shown.dlq).toEqual(dlq.map((r) => Number(r.n)));

      // Layers: the same PromQL at the same instant, straight from Prometheus.
      const layers = await getJson<{ data: { rows: { promql: string }[] } }>(
        `${base}/api/layers?at=${atMs}`,
      );
      const direct = await Promise.all(
        layers.data.rows.map(async (row) => {
          const body = await getJson<{ data: { result: { value: [number, string] }[] } }>(
            `${PROMETHEUS_URL}/api/v1/query?${new URLSearchParams({ query: row.promql, time: (atMs / 1000).toFixed(3) }).toString()}`,
          );
          const v = Number(body.data.result[0]?.value[1]);
          return body.data.result.length === 0 || !Number.isFinite(v) ? 'no_data' : String(v);
        }),
      );
      expect(shown.layers).toEqual(direct);
      // The loader is running, so at least its throughput rows have data.
      expect(direct.some((v) => v !== 'no_data')).toBe(true);
    });
  });
});
