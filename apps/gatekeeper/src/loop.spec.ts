import pino from 'pino';
import type { LoopResult, TransactionalLoopOptions } from '@clickstream/kafka-tx';
import { parseConfig, type GatekeeperConfig } from './config';
import { HealthTracker } from './health';
import { runLoop, type LoopDeps } from './loop';
import { createMetrics } from './metrics';
import type { KafkaPort } from './ports';

function config(extra: string[]): GatekeeperConfig {
  const parsed = parseConfig(['--loop-restart-ms', '10', ...extra], {});
  if (parsed.help) throw new Error('unexpected help');
  return parsed.config;
}

function deps(
  loop: KafkaPort['runTransactionalLoop'],
  extra: string[],
  signal: AbortSignal,
  onStuck = jest.fn(),
): LoopDeps {
  const kafka: KafkaPort = {
    runTransactionalLoop: loop,
    lagReader: () => ({ lag: () => Promise.resolve(0), close: () => Promise.resolve() }),
    endOffsets: () => Promise.resolve(new Map()),
  };
  return {
    config: config(extra),
    client: { bootstrap: 'x:1', clientId: 'c', logger: pino({ level: 'silent' }) },
    kafka,
    metrics: createMetrics({ defaultMetrics: false }),
    health: new HealthTracker({ instanceId: 'i', transactionalId: 'gatekeeper-i' }),
    logger: pino({ level: 'silent' }),
    signal,
    onStuck,
  };
}

describe('runLoop', () => {
  it('restarts a loop that failed, and returns what the next one returns', async () => {
    let calls = 0;
    const loop = (_o: TransactionalLoopOptions): Promise<LoopResult> =>
      ++calls < 3
        ? Promise.reject(new Error('fatal producer error'))
        : Promise.resolve({ reason: 'fenced' });
    const d = deps(loop, [], new AbortController().signal);
    await expect(runLoop(d)).resolves.toEqual({ reason: 'fenced' });
    expect(calls).toBe(3);
    expect(d.health.snapshot().loopRestarts).toBe(2);
    expect((await d.metrics.loopRestarts.get()).values[0]?.value).toBe(2);
  });

  it('stops restarting once the stop signal is given', async () => {
    const controller = new AbortController();
    const loop = (): Promise<LoopResult> => {
      controller.abort();
      return Promise.reject(new Error('broken while stopping'));
    };
    await expect(runLoop(deps(loop, [], controller.signal))).resolves.toEqual({
      reason: 'stopped',
    });
  });

  it('reports a transaction that stays in flight longer than --stall-exit-ms, once', async () => {
    const controller = new AbortController();
    const onStuck = jest.fn();
    const loop = (o: TransactionalLoopOptions): Promise<LoopResult> =>
      new Promise((resolve) => {
        o.hooks?.onRecordsIn?.(10);
        // A hung commit: nothing happens until the test stops the loop.
        controller.signal.addEventListener('abort', () => resolve({ reason: 'stopped' }));
      });
    const d = deps(loop, ['--stall-exit-ms', '150'], controller.signal, onStuck);
    const done = runLoop(d);
    await new Promise((r) => setTimeout(r, 700));
    expect(onStuck).toHaveBeenCalledTimes(1);
    expect(onStuck.mock.calls[0]?.[0]).toBeGreaterThanOrEqual(150);
    expect(d.health.snapshot().phase).toBe('stuck');
    controller.abort();
    await expect(done).resolves.toEqual({ reason: 'stopped' });
  });

  it('does not report a loop whose transactions finish, nor any loop with --stall-exit-ms 0', async () => {
    for (const limit of ['150', '0']) {
      const controller = new AbortController();
      const onStuck = jest.fn();
      const loop = (o: TransactionalLoopOptions): Promise<LoopResult> =>
        new Promise((resolve) => {
          const timer = setInterval(() => {
            o.hooks?.onRecordsIn?.(1);
            if (limit === '150') o.hooks?.onCommit?.(1, 1);
          }, 20);
          controller.signal.addEventListener('abort', () => {
            clearInterval(timer);
            resolve({ reason: 'stopped' });
          });
        });
      const done = runLoop(deps(loop, ['--stall-exit-ms', limit], controller.signal, onStuck));
      await new Promise((r) => setTimeout(r, 500));
      controller.abort();
      await done;
      expect(onStuck).not.toHaveBeenCalled();
    }
  });
});
