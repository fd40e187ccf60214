/**
 * Freshness benchmark: events sent at a fixed rate, time until each is queryable in ClickHouse's
 * events_valid. Path "gatekeeper" (default): raw topic -> gatekeeper -> valid topic -> loader;
 * path "direct": straight into a valid topic -> loader. Every topic and the database are unique to
 * the run and removed after. Writes results/bench/freshness.json (or --out).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { encodeEvent, formatSeqHeader, HEADERS, type ClickEvent } from '@clickstream/contracts';
import {
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  type DeliveryReport,
} from '@clickstream/kafka-tx';
import { samplePageView } from '@clickstream/test-support';
import { createWarehouse, TABLES } from '@clickstream/warehouse';
import { assertAlive, sleep, startChild, stopChild, summary, type Child } from './bench-lib';

const { values: a } = parseArgs({
  options: {
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '60' },
    'warmup-seconds': { type: 'string', default: '5' },
    'poll-ms': { type: 'string', default: '100' },
    'flush-ms': { type: 'string', default: '250' },
    path: { type: 'string', default: 'gatekeeper' },
    bootstrap: {
      type: 'string',
      default: process.env.KAFKA_BOOTSTRAP ?? '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    },
    'clickhouse-url': {
      type: 'string',
      default: process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123',
    },
    out: {
      type: 'string',
      default: join(__dirname, '..', '..', '..', '..', 'results', 'bench', 'freshness.json'),
    },
  },
});
const rate = Number(a.rate);
const seconds = Number(a.seconds);
const warmup = Number(a['warmup-seconds']);
const pollMs = Number(a['poll-ms']);
const path = a.path;
if (
  ![rate, seconds, warmup, pollMs].every((n) => Number.isFinite(n) && n >= 0) ||
  rate === 0 ||
  (path !== 'gatekeeper' && path !== 'direct')
) {
  throw new Error(
    `bad arguments: rate=${a.rate} seconds=${a.seconds} warmup-seconds=${a['warmup-seconds']} poll-ms=${a['poll-ms']} path=${path} (expected numbers, path gatekeeper|direct)`,
  );
}

const noop = (): void => undefined;
const quiet = { debug: noop, info: noop, warn: noop, error: noop };
const kafka = { bootstrap: a.bootstrap, clientId: 'bench-freshness', logger: quiet };
const APPS = join(__dirname, '..', '..', '..');

async function main(): Promise<void> {
  const id = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const runId = `bench_${id}`;
  const database = `bench_fresh_${id}`;
  const raw = `bench.raw.${id}`;
  const valid = `bench.valid.${id}`;
  const dlq = `bench.dlq.${id}`;
  const topics = path === 'gatekeeper' ? [raw, valid, dlq] : [valid];
  await createTopics(
    kafka,
    topics.map((topic) => ({ topic, partitions: 6 })),
  );
  const wh = createWarehouse({
    url: a['clickhouse-url'],
    database,
    logger: quiet,
    requestTimeoutMs: 10_000,
  });
  const children: Child[] = [];
  try {
    children.push(
      startChild('loader', join(APPS, 'loader', 'dist', 'main.js'), [
        ...[
          '--bootstrap',
          a.bootstrap,
          '--clickhouse-url',
          a['clickhouse-url'],
          '--database',
          database,
        ],
        ...[
          '--group',
          `bench-loader-${id}`,
          '--topics',
          `valid=${valid}`,
          '--flush-ms',
          a['flush-ms'],
          '--metrics-port',
          '0',
          '--log-level',
          'warn',
        ],
      ]),
    );
    if (path === 'gatekeeper') {
      children.push(
        startChild('gatekeeper', join(APPS, 'gatekeeper', 'dist', 'main.js'), [
          ...[
            '--bootstrap',
            a.bootstrap,
            '--raw-topic',
            raw,
            '--valid-topic',
            valid,
            '--dlq-topic',
            dlq,
          ],
          ...[
            '--group-id',
            `bench-gk-${id}`,
            '--instance-id',
            `bench-${id}`,
            '--metrics-port',
            '0',
            '--log-level',
            'warn',
          ],
        ]),
      );
    }
    // The loader creates the table; wait for it (and for the apps to be alive) before sending.
    for (let t = Date.now(); ; await sleep(200)) {
      assertAlive(children);
      const ok = await wh.query(`SELECT 1 FROM ${TABLES.valid} LIMIT 1`).then(
        () => true,
        () => false,
      );
      if (ok) break;
      if (Date.now() - t > 60_000) throw new Error('events_valid did not appear within 60 s');
    }
    await sleep(3000); // consumer group joins

    const total = Math.round(rate * (warmup + seconds));
    const sentAt = new Float64Array(total).fill(NaN);
    const visibleAt = new Float64Array(total).fill(NaN);
    const producer = await createIdempotentProducer(kafka);
    const deliveries: Promise<DeliveryReport[]>[] = [];
    let sent = 0;
    let pollErrors = 0;
    let done = false;
    let lastSendAt = Date.now();

    const poller = (async () => {
      let low = 0; // every seq below is visible
      while (!done || low < sent) {
        const started = Date.now();
        try {
          const rows = await wh.query<{ seq: number }>(
            `SELECT seq FROM ${TABLES.valid} WHERE run_id = {run:String} AND seq >= {low:UInt64}`,
            { run: runId, low },
          );
          const now = Date.now();
          for (const r of rows)
            if (Number.isNaN(visibleAt[r.seq] as number)) visibleAt[r.seq] = now;
          while (low < sent && !Number.isNaN(visibleAt[low] as number)) low++;
        } catch {
          pollErrors++;
        }
        if (done && Date.now() - lastSendAt > 60_000) break; // whatever is still missing is reported as missing
        await sleep(Math.max(0, pollMs - (Date.now() - started)));
      }
    })();

    const t0 = Date.now();
    const loadAtStart = loadavg()[0] ?? null;
    while (sent < total) {
      assertAlive(children);
      const due = Math.min(total, Math.floor(((Date.now() - t0) * rate) / 1000));
      const batch = [];
      for (; sent < due; sent++) {
        const now = Date.now();
        const e: ClickEvent = samplePageView(sent, runId, {
          event_time: now,
          session_id: `s-${sent % 97}`,
          page: '/bench',
          // Direct path: we play the gatekeeper and stamp the ingest time ourselves.
          ingest_time: path === 'direct' ? now : null,
        });
        sentAt[sent] = now;
        batch.push({
          topic: path === 'direct' ? valid : raw,
          key: e.session_id,
          value: encodeEvent(e),
          headers: { [HEADERS.seq]: formatSeqHeader(sent), [HEADERS.runId]: runId },
          timestamp: now,
        });
      }
      if (batch.length > 0) deliveries.push(producer.send(batch));
      lastSendAt = Date.now();
      await sleep(5);
    }
    const sendSeconds = (Date.now() - t0) / 1000;
    const reports = (await Promise.all(deliveries)).flat();
    await producer.close();
    done = true;
    await poller;

    const warm = Math.round(rate * warmup);
    const lat: number[] = [];
    let missing = 0;
    for (let s = warm; s < total; s++) {
      const v = visibleAt[s] as number;
      if (Number.isNaN(v)) missing++;
      else lat.push(v - (sentAt[s] as number));
    }
    const [sql] = await wh.query<{ p50: number; p99: number }>(
      `SELECT quantileExact(0.5)(inserted_at - ingest_time) AS p50, quantileExact(0.99)(inserted_at - ingest_time) AS p99 FROM ${TABLES.valid} FINAL WHERE run_id = {run:String} AND seq >= {warm:UInt64}`,
      { run: runId, warm },
    );
    const [version] = await wh.query<{ v: string }>('SELECT version() AS v');
    const result = {
      name: 'freshness',
      what: 'send (producer.send of the raw/valid record) -> first poll that sees the seq in events_valid (no FINAL), ms',
      path:
        path === 'gatekeeper'
          ? 'raw -> gatekeeper -> events.valid-like topic -> loader -> events_valid'
          : 'valid topic (no gatekeeper) -> loader -> events_valid',
      rate_per_s: rate,
      measured_seconds: seconds,
      warmup_seconds: warmup,
      achieved_send_rate_per_s: Math.round(total / sendSeconds),
      poll_ms: pollMs,
      loader_flush_ms: Number(a['flush-ms']),
      sent: total,
      delivery_failures: reports.filter((r) => !r.ok).length,
      measured_events: total - warm,
      missing,
      poll_errors: pollErrors,
      send_to_visible_ms: summary(lat),
      sql_inserted_at_minus_ingest_time_ms: { p50: sql?.p50 ?? null, p99: sql?.p99 ?? null },
      clickhouse_version: version?.v ?? null,
      // The machine is shared (2 cores): the 1-minute load average says how contended the run was.
      load_average_1m: { start: loadAtStart, end: loadavg()[0] ?? null },
      started_at: new Date(t0).toISOString(),
      command: `npx nx run loader:bench-freshness -- ${process.argv.slice(2).join(' ')}`.trim(),
    };
    const out = resolve(a.out);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\nwritten to ${out}\n`);
  } finally {
    for (const c of children.reverse()) await stopChild(c);
    await wh.command(`DROP DATABASE IF EXISTS ${database}`).catch(noop);
    await wh.close();
    await deleteTopics(kafka, topics).catch(noop);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `bench-freshness: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
