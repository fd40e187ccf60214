import pino from 'pino';
import type { AtLeastOnceOptions } from '@clickstream/kafka-tx';
import type { Warehouse } from '@clickstream/warehouse';
import { parseConfig, type LoaderConfig } from './config';
import { newHealth } from './health';
import { createMetrics } from './metrics';
import { lanesOf, run, type RunDeps } from './run';

function config(argv: string[] = []): LoaderConfig {
  const parsed = parseConfig(['--lag-interval-ms', '0', ...argv], {});
  if (parsed.help) throw new Error('unexpected --help');
  return parsed.config;
}

describe('lanesOf', () => {
  it('puts the tables no freshness goal reads in the slow lane', () => {
    expect(lanesOf(config())).toEqual([
      { name: 'fast', flushMs: 250, topics: ['events.valid', 'events.clean', 'agg.windows'] },
      { name: 'slow', flushMs: 5000, topics: ['events.dlq', 'events.late', 'agg.sessions'] },
    ]);
  });

  it('has one lane when the slow lane is off or has none of the topics', () => {
    expect(lanesOf(config(['--slow-roles', 'none'])).map((l) => l.name)).toEqual(['fast']);
    expect(lanesOf(config(['--topics', 'valid=v,windows=w']))).toHaveLength(1);
    expect(lanesOf(config(['--topics', 'dlq=d']))).toEqual([
      { name: 'slow', flushMs: 5000, topics: ['d'] },
    ]);
  });
});

describe('run', () => {
  function deps(
    consume: (o: AtLeastOnceOptions) => Promise<void>,
    argv: string[] = [],
    signal = new AbortController().signal,
  ): RunDeps {
    const warehouse = {
      applyDdl: () => Promise.resolve([]),
      insertRows: () => Promise.resolve(),
    } as unknown as Warehouse;
    return {
      config: config(argv),
      logger: pino({ level: 'silent' }),
      kafka: { bootstrap: '127.0.0.1:1', clientId: 'spec', logger: pino({ level: 'silent' }) },
      warehouse,
      metrics: createMetrics(),
      health: newHealth(),
      signal,
      consume,
      lagOf: () => Promise.resolve(0),
      crash: () => undefined,
    };
  }

  /** Resolves when the consumer's signal aborts, as runAtLeastOnceConsumer does after its last flush. */
  const untilStopped = (o: AtLeastOnceOptions): Promise<void> =>
    new Promise((resolve) => {
      if (o.signal?.aborted) resolve();
      o.signal?.addEventListener('abort', () => resolve(), { once: true });
    });

  it('runs one consumer of the group per lane, each with its topics and flush interval, until stopped', async () => {
    const seen: AtLeastOnceOptions[] = [];
    const stop = new AbortController();
    const running = run(
      deps(
        (o) => {
          seen.push(o);
          if (seen.length === 2) stop.abort();
          return untilStopped(o);
        },
        ['--slow-flush-ms', '2000', '--group', 'g'],
        stop.signal,
      ),
    );
    await expect(running).resolves.toBeUndefined();
    expect(seen.map((o) => [o.groupId, o.client.clientId, o.topics, o.maxBatchMs])).toEqual([
      ['g', 'spec', ['events.valid', 'events.clean', 'agg.windows'], 250],
      ['g', 'spec-slow', ['events.dlq', 'events.late', 'agg.sessions'], 2000],
    ]);
  });

  it('stops the other lane and rejects when one lane gives up', async () => {
    let otherStopped = false;
    const running = run(
      deps((o) => {
        if (o.topics.includes('events.dlq')) return Promise.reject(new Error('slow lane: gave up'));
        return untilStopped(o).then(() => {
          otherStopped = true;
        });
      }),
    );
    await expect(running).rejects.toThrow('slow lane: gave up');
    expect(otherStopped).toBe(true);
  });

  it("polls every lane's topics for the lag gauge, and stops polling when a lane gives up", async () => {
    const asked: string[] = [];
    const d = deps(
      (o) =>
        o.topics.includes('events.dlq')
          ? new Promise<void>((_, reject) => setTimeout(() => reject(new Error('gave up')), 50))
          : untilStopped(o),
      ['--lag-interval-ms', '10'],
    );
    d.lagOf = (topic) => {
      asked.push(topic);
      return Promise.resolve(0);
    };
    await expect(run(d)).rejects.toThrow('gave up');
    expect(new Set(asked)).toEqual(
      new Set([
        'events.valid',
        'events.clean',
        'agg.windows',
        'events.dlq',
        'events.late',
        'agg.sessions',
      ]),
    );
  });
});
