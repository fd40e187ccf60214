import pino from 'pino';
import { encodeEvent } from '@clickstream/contracts';
import type { LoopResult, OutRecord, TransactionalLoopOptions } from '@clickstream/kafka-tx';
import { NOW, POISON, rawRecord, sampleEvent } from '../test/fixtures';
import { parseConfig, type GatekeeperConfig } from './config';
import { createMetrics } from './metrics';
import type { KafkaPort } from './ports';
import { run } from './run';

const logger = pino({ level: 'silent' });

function testConfig(extra: string[] = []): GatekeeperConfig {
  const parsed = parseConfig(
    [
      '--metrics-port',
      '0',
      '--raw-topic',
      'raw',
      '--valid-topic',
      'valid',
      '--dlq-topic',
      'dlq',
      '--lag-poll-ms',
      '100',
      ...extra,
    ],
    {},
  );
  if (parsed.help) throw new Error('unexpected help');
  return parsed.config;
}

/** A stand-in for kafka-tx that plays one batch as aborted, then the same batch as committed, then waits for the stop signal. */
function scriptedKafka(
  partitions: Record<string, number>,
  seen: { options?: TransactionalLoopOptions; outputs: OutRecord[][] },
): KafkaPort {
  const batch = [
    rawRecord(encodeEvent(sampleEvent('page_view', 1, 'r', NOW)), { offset: 0 }),
    rawRecord(POISON.bad_magic(2, 'r', NOW), { offset: 1 }),
    rawRecord(POISON.empty(3, 'r', NOW), { offset: 2 }),
  ];
  return {
    endOffsets: (_o, topic) =>
      Promise.resolve(
        new Map(
          Array.from({ length: partitions[topic] ?? 0 }, (_, p) => [p, 0] as [number, number]),
        ),
      ),
    lagReader: () => ({ lag: () => Promise.resolve(42), close: () => Promise.resolve() }),
    runTransactionalLoop: async (options): Promise<LoopResult> => {
      seen.options = options;
      const hooks = options.hooks ?? {};
      hooks.onRecordsIn?.(batch.length);
      seen.outputs.push(await options.transform(batch));
      hooks.onAbort?.(new Error('coordinator moved'));
      hooks.onRecordsIn?.(batch.length);
      seen.outputs.push(await options.transform(batch));
      hooks.onCommit?.(12, batch.length);
      await new Promise<void>((resolve) =>
        options.signal?.addEventListener('abort', () => resolve(), { once: true }),
      );
      return { reason: 'stopped' };
    },
  };
}

async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
}

describe('run', () => {
  it('routes batches through the loop, counts only committed outcomes, serves metrics and health, and stops on abort', async () => {
    const seen: { options?: TransactionalLoopOptions; outputs: OutRecord[][] } = { outputs: [] };
    const metrics = createMetrics({ defaultMetrics: false });
    const controller = new AbortController();
    let port = 0;
    let finished: Promise<LoopResult> | undefined;
    const listening = new Promise<void>((resolve) => {
      const done = run({
        config: testConfig(['--instance-id', 'i7', '--batch-records', '77']),
        logger,
        kafka: scriptedKafka({ raw: 6, valid: 6, dlq: 6 }, seen),
        metrics,
        signal: controller.signal,
        onListening: (p) => {
          port = p;
          resolve();
        },
      });
      finished = done;
    });
    await listening;
    await new Promise((r) => setTimeout(r, 300));

    expect(seen.options).toMatchObject({
      groupId: 'gatekeeper',
      transactionalId: 'gatekeeper-i7',
      inputTopics: ['raw'],
      maxBatchRecords: 77,
      maxBatchMs: 250,
    });
    expect(seen.outputs[1]?.map((o) => o.topic)).toEqual(['valid', 'dlq', 'dlq']);
    const text = (await get(port, '/metrics')).body;
    expect(text).toMatch(/gatekeeper_records_in_total 6/);
    expect(text).toMatch(/gatekeeper_records_valid_total 1/);
    expect(text).toMatch(/gatekeeper_records_dead_lettered_total\{reason="bad_magic"\} 1/);
    expect(text).toMatch(/gatekeeper_records_dead_lettered_total\{reason="empty"\} 1/);
    expect(text).toMatch(/gatekeeper_records_dead_lettered_total\{reason="truncated"\} 0/);
    expect(text).toMatch(/gatekeeper_transactions_committed_total 1/);
    expect(text).toMatch(/gatekeeper_transactions_aborted_total 1/);
    expect(text).toMatch(/gatekeeper_consumer_lag 42/);
    expect(text).toMatch(/gatekeeper_batch_duration_seconds_count 1/);
    const health = await get(port, '/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({
      phase: 'running',
      commits: 1,
      aborts: 1,
      transactionalId: 'gatekeeper-i7',
    });
    expect((await get(port, '/nope')).status).toBe(404);

    controller.abort();
    await expect(finished).resolves.toEqual({ reason: 'stopped' });
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('refuses to start when an output topic has fewer partitions than the raw topic', async () => {
    const seen = { outputs: [] };
    const start = run({
      config: testConfig(),
      logger,
      kafka: scriptedKafka({ raw: 6, valid: 6, dlq: 3 }, seen),
      metrics: createMetrics({ defaultMetrics: false }),
      signal: new AbortController().signal,
    });
    await expect(start).rejects.toThrow(
      /dlq has 3 partitions; it needs at least as many as raw \(6\)/,
    );
  });

  it('refuses to start when the raw topic does not exist', async () => {
    const start = run({
      config: testConfig(),
      logger,
      kafka: scriptedKafka({ valid: 6, dlq: 6 }, { outputs: [] }),
      metrics: createMetrics({ defaultMetrics: false }),
      signal: new AbortController().signal,
    });
    await expect(start).rejects.toThrow(/raw topic raw has no partitions/);
  });
});
