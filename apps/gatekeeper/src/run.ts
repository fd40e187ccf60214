/** The gatekeeper's lifecycle: checks the topics, serves metrics and lag, runs the transactional loop (loop.ts) until stopped or fenced. */

import type { Logger } from 'pino';
import type { KafkaClientOptions, LoopResult } from '@clickstream/kafka-tx';
import { startStatusServer } from '@clickstream/status-server';
import type { GatekeeperConfig } from './config';
import { HealthTracker } from './health';
import type { GatekeeperMetrics } from './metrics';
import { pollLag } from './lag';
import { runLoop } from './loop';
import type { KafkaPort } from './ports';

export interface RunDeps {
  config: GatekeeperConfig;
  logger: Logger;
  kafka: KafkaPort;
  metrics: GatekeeperMetrics;
  /** Aborted on SIGTERM: the loop ends its open transaction and run() resolves. */
  signal: AbortSignal;
  /** Called once the status server listens (tests use it to find an ephemeral port). */
  onListening?(port: number): void;
  /** Called when one transaction has been in flight longer than config.stallExitMs (main exits so a restart fences it). */
  onStuck?(inFlightMs: number): void;
}

export function clientOptions(config: GatekeeperConfig, logger: Logger): KafkaClientOptions {
  const options: KafkaClientOptions = {
    bootstrap: config.bootstrap,
    clientId: config.transactionalId,
    logger,
  };
  if (config.connectTimeoutMs !== undefined) options.connectTimeoutMs = config.connectTimeoutMs;
  if (config.requestTimeoutMs !== undefined) options.requestTimeoutMs = config.requestTimeoutMs;
  if (config.socketTimeoutMs !== undefined) options.socketTimeoutMs = config.socketTimeoutMs;
  if (config.transactionTimeoutMs !== undefined)
    options.transactionTimeoutMs = config.transactionTimeoutMs;
  return options;
}

/**
 * Valid and dead-letter records keep the raw partition number, so both outputs need at least as many
 * partitions as the input; a mismatch would fail every transaction forever, so it fails the start instead.
 */
export async function checkTopics(
  kafka: KafkaPort,
  client: KafkaClientOptions,
  config: GatekeeperConfig,
): Promise<number> {
  const count = async (topic: string) => (await kafka.endOffsets(client, topic)).size;
  const raw = await count(config.rawTopic);
  if (raw === 0) throw new Error(`raw topic ${config.rawTopic} has no partitions (does it exist?)`);
  for (const topic of [config.validTopic, config.dlqTopic]) {
    const n = await count(topic);
    if (n < raw)
      throw new Error(
        `output topic ${topic} has ${n} partitions; it needs at least as many as ${config.rawTopic} (${raw}) because records keep their partition number`,
      );
  }
  return raw;
}

export async function run(deps: RunDeps): Promise<LoopResult> {
  const { config, kafka, metrics, signal } = deps;
  const logger = deps.logger.child({ module: 'gatekeeper' });
  const health = new HealthTracker(config);
  const server = await startStatusServer({
    host: config.metricsHost,
    port: config.metricsPort,
    metrics: metrics.registry,
    health: () => health.check(),
  });
  deps.onListening?.(server.port);
  logger.info({ host: config.metricsHost, port: server.port }, 'status server listening');

  const client = clientOptions(config, deps.logger);
  const stopPolling = new AbortController();
  const onStop = () => stopPolling.abort();
  signal.addEventListener('abort', onStop, { once: true });
  try {
    const partitions = await checkTopics(kafka, client, config);
    logger.info(
      {
        rawTopic: config.rawTopic,
        validTopic: config.validTopic,
        dlqTopic: config.dlqTopic,
        partitions,
        transactionalId: config.transactionalId,
        groupId: config.groupId,
      },
      'starting',
    );
    const lagDone = pollLag({
      kafka,
      client,
      groupId: config.groupId,
      topic: config.rawTopic,
      everyMs: config.lagPollMs,
      gauge: metrics.lag,
      logger,
      signal: stopPolling.signal,
    });

    const result = await runLoop({
      config,
      client,
      kafka,
      metrics,
      health,
      logger,
      signal,
      onStuck: deps.onStuck ?? (() => undefined),
    });
    health.ended(result.reason === 'fenced' ? 'fenced' : 'stopped');
    const { commits, aborts } = health.snapshot();
    logger.info({ reason: result.reason, commits, aborts }, 'loop ended');
    stopPolling.abort();
    await lagDone;
    return result;
  } catch (error) {
    health.failed();
    throw error;
  } finally {
    stopPolling.abort();
    signal.removeEventListener('abort', onStop);
    await server.close();
  }
}
