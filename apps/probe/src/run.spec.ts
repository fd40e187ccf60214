import { Registry } from 'prom-client';
import type { DeliveryReport, OutRecord } from '@clickstream/kafka-tx';
import { createMetrics } from './metrics';
import { nextGapMs, run } from './run';
import { ProbeTracker } from './tracker';

const T0 = 1_700_000_000_000;
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined };

/** A fake pipeline on jest's fake clock: a record becomes visible in each table `delayMs[table]` after its send. */
function fakePipeline(delayMs: Record<string, number>) {
  const sends: { seq: number; at: number }[] = [];
  let frozenAt: number | null = null;
  return {
    sends,
    freeze: () => (frozenAt = Date.now()),
    thaw: () => (frozenAt = null),
    producer: {
      send(records: OutRecord[]): Promise<DeliveryReport[]> {
        for (const r of records) sends.push({ seq: Number(r.headers?.['cs-seq']), at: Date.now() });
        return Promise.resolve(
          records.map(() => ({ ok: true, topic: 't', partition: 0, offset: 0, error: null })),
        );
      },
    },
    warehouse: {
      query<T>(sql: string, params?: Record<string, unknown>): Promise<T[]> {
        const table = /FROM (\w+)/.exec(sql)?.[1] ?? '';
        const from = Number(params?.['from']);
        const horizon = frozenAt ?? Date.now();
        const visible = (s: { at: number }) => s.at + (delayMs[table] ?? 0) <= horizon;
        if (table === 'agg_windows') {
          // The windows job's rows: events counted per 10 s window (event time = send time).
          const counts = new Map<number, number>();
          for (const s of sends.filter(visible)) {
            const w = Math.floor(s.at / 10_000) * 10_000;
            if (w >= from) counts.set(w, (counts.get(w) ?? 0) + 1);
          }
          return Promise.resolve(
            [...counts].map(([window_start, events]) => ({ window_start, events }) as T),
          );
        }
        return Promise.resolve(
          sends.filter((s) => s.seq >= from && visible(s)).map((s) => ({ seq: s.seq }) as T),
        );
      },
    },
  };
}

async function metric(registry: Registry, name: string, layer: string): Promise<number> {
  const m = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  return m.find((v) => v.labels.layer === layer && !('le' in v.labels))?.value ?? NaN;
}

describe('probe run loop (fake clock)', () => {
  beforeEach(() => jest.useFakeTimers({ now: T0 }));
  afterEach(() => jest.useRealTimers());

  async function start(
    p: ReturnType<typeof fakePipeline>,
    poll = { pollMs: 1_000, windowsPollMs: 1_000 },
  ) {
    const registry = new Registry();
    const metrics = createMetrics(registry);
    const tracker = new ProbeTracker({
      layers: ['valid', 'clean', 'windows'],
      sloThresholdMs: 10_000,
      forgetAfterMs: 600_000,
      startedAt: T0,
      hooks: metrics.hooks,
    });
    metrics.attach(tracker, Date.now);
    const stop = new AbortController();
    const sleep = (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const t = setTimeout(done, ms);
        signal.addEventListener('abort', done, { once: true });
      });
    const done = run({
      config: {
        topic: 'clickstream.raw',
        intervalMs: 5_000,
        intervalJitter: 0,
        ...poll,
      },
      runId: 'probe-test',
      logger: quiet,
      frontDoors: [{ name: 'kafka', send: (r: OutRecord[]) => p.producer.send(r) }],
      warehouse: p.warehouse,
      tracker,
      metrics,
      clock: Date.now,
      random: Math.random,
      sleep,
      signal: stop.signal,
    });
    return { registry, stop, done };
  }

  it('sends one event per interval and sees each layer at its own delay', async () => {
    const p = fakePipeline({ events_valid: 1_000, events_clean: 4_000, agg_windows: 7_000 });
    const { registry, stop, done } = await start(p);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(p.sends.length).toBe(13); // at 0, 5, ..., 60 s
    expect(p.sends.every((s, i) => s.seq === i && s.at === T0 + i * 5_000)).toBe(true);
    expect(await metric(registry, 'probe_slo_events_total', 'clean')).toBe(12);
    expect(await metric(registry, 'probe_slo_good_total', 'clean')).toBe(12);
    // The newest clean event seen was sent at 55 s: age 5 s at 60 s.
    expect(await metric(registry, 'probe_newest_seen_age_seconds', 'clean')).toBe(5);
    expect(await metric(registry, 'probe_newest_seen_age_seconds', 'valid')).toBe(5);
    // Windows: counted 7 s after the send, so at 60 s the newest counted was sent at 50 s; each of
    // the 11 events judged so far (sent by 50 s) was seen within the 10 s threshold.
    expect(await metric(registry, 'probe_newest_seen_age_seconds', 'windows')).toBe(10);
    expect(await metric(registry, 'probe_slo_events_total', 'windows')).toBe(11);
    expect(await metric(registry, 'probe_slo_good_total', 'windows')).toBe(11);
    stop.abort();
    await jest.advanceTimersByTimeAsync(1_000);
    await done;
  });

  it('asks valid and clean every pollMs only while they have unseen events, and windows every windowsPollMs', async () => {
    const p = fakePipeline({ events_valid: 1_000, events_clean: 2_000, agg_windows: 7_000 });
    const asked = new Map<string, number>();
    const query = p.warehouse.query.bind(p.warehouse);
    p.warehouse.query = <T>(sql: string, params?: Record<string, unknown>): Promise<T[]> => {
      const table = /FROM (\w+)/.exec(sql)?.[1] ?? '';
      asked.set(table, (asked.get(table) ?? 0) + 1);
      return query<T>(sql, params);
    };
    const { registry, stop, done } = await start(p, { pollMs: 250, windowsPollMs: 1_000 });
    await jest.advanceTimersByTimeAsync(60_000);
    // Each send is unseen in valid for 1 s and in clean for 2 s of every 5 s: about 5 and 9 asks per send at 250 ms.
    expect(asked.get('events_valid')).toBeLessThanOrEqual(13 * 5);
    expect(asked.get('events_clean')).toBeLessThanOrEqual(13 * 9);
    // Windows always has an unseen event (7 s behind, a send every 5 s): once a second.
    expect(asked.get('agg_windows')).toBeGreaterThanOrEqual(55);
    expect(asked.get('agg_windows')).toBeLessThanOrEqual(61);
    // Every clean event was judged good: seen within 2-2.25 s.
    expect(await metric(registry, 'probe_slo_good_total', 'clean')).toBe(12);
    stop.abort();
    await jest.advanceTimersByTimeAsync(1_000);
    await done;
  });

  it('during a stall the age keeps rising and overdue events count as bad at their deadline', async () => {
    const p = fakePipeline({ events_valid: 500, events_clean: 2_000 });
    const { registry, stop, done } = await start(p);
    await jest.advanceTimersByTimeAsync(20_000);
    p.freeze();
    await jest.advanceTimersByTimeAsync(40_000);
    const age = await metric(registry, 'probe_newest_seen_age_seconds', 'clean');
    expect(age).toBeGreaterThanOrEqual(40);
    const bad =
      (await metric(registry, 'probe_slo_events_total', 'clean')) -
      (await metric(registry, 'probe_slo_good_total', 'clean'));
    expect(bad).toBeGreaterThanOrEqual(5); // sends at 20..45 s are past their 10 s deadline at 60 s
    p.thaw();
    await jest.advanceTimersByTimeAsync(3_000);
    expect(await metric(registry, 'probe_newest_seen_age_seconds', 'clean')).toBeLessThan(5);
    stop.abort();
    await jest.advanceTimersByTimeAsync(1_000);
    await done;
  });

  it('uses the front doors in turn, and a failed delivery is counted for its door', async () => {
    const registry = new Registry();
    const metrics = createMetrics(registry);
    const tracker = new ProbeTracker({
      layers: ['valid'],
      sloThresholdMs: 10_000,
      forgetAfterMs: 600_000,
      startedAt: T0,
      hooks: metrics.hooks,
    });
    const used: string[] = [];
    const door = (name: string, ok: boolean) => ({
      name,
      send: (records: OutRecord[]): Promise<DeliveryReport[]> => {
        used.push(name);
        return Promise.resolve(
          records.map(() => ({
            ok,
            topic: 't',
            partition: null,
            offset: null,
            error: ok ? null : 'refused',
          })),
        );
      },
    });
    const stop = new AbortController();
    const done = run({
      config: {
        topic: 'clickstream.raw',
        intervalMs: 5_000,
        intervalJitter: 0,
        pollMs: 1_000,
        windowsPollMs: 1_000,
      },
      runId: 'probe-test',
      logger: quiet,
      frontDoors: [door('kafka', true), door('http', false)],
      warehouse: { query: <T>() => Promise.resolve([] as T[]) },
      tracker,
      metrics,
      clock: Date.now,
      random: Math.random,
      sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
      signal: stop.signal,
    });
    await jest.advanceTimersByTimeAsync(15_000);
    stop.abort();
    await jest.advanceTimersByTimeAsync(5_000);
    await done;
    expect(used.slice(0, 4)).toEqual(['kafka', 'http', 'kafka', 'http']);
    const failures =
      (await registry.getSingleMetric('probe_send_failures_total')?.get())?.values ?? [];
    expect(failures.find((v) => v.labels.front_door === 'http')?.value).toBe(2);
    expect(failures.find((v) => v.labels.front_door === 'kafka')).toBeUndefined();
  });
});

describe('nextGapMs', () => {
  const config = { intervalMs: 5_000, intervalJitter: 0.5 };
  it('spans [1 - j, 1 + j] of the interval, centred on it', () => {
    expect(nextGapMs(config, () => 0)).toBe(2_500);
    expect(nextGapMs(config, () => 0.5)).toBe(5_000);
    expect(nextGapMs(config, () => 0.999_999)).toBe(7_500);
  });
  it('is the interval itself without jitter', () => {
    expect(nextGapMs({ intervalMs: 5_000, intervalJitter: 0 }, Math.random)).toBe(5_000);
  });
  it('keeps the mean gap at the interval (so the SLO sees one probe per interval on average)', () => {
    let x = 0;
    const evenly = () => (x++ % 1000) / 1000 + 0.0005;
    let sum = 0;
    for (let i = 0; i < 1000; i++) sum += nextGapMs(config, evenly);
    expect(sum / 1000).toBeCloseTo(5_000, 0);
  });
});
