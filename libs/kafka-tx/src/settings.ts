/** Tested default timeouts and the librdkafka settings derived from KafkaClientOptions (see README for why each is set). */
import type { KafkaClientOptions } from './types';

/**
 * Defaults chosen so that a dead broker or coordinator stalls a client for seconds, not a minute:
 * librdkafka's own defaults (30 s connection setup, 60 s socket timeout, 10 s reconnect backoff
 * cap, 5 min metadata refresh) cost the reference system 70 s on one dead coordinator.
 */
export const DEFAULT_TIMEOUTS = {
  connectTimeoutMs: 4000,
  requestTimeoutMs: 10000,
  socketTimeoutMs: 10000,
  sessionTimeoutMs: 10000,
  transactionTimeoutMs: 60000,
} as const;

/**
 * Producer linger.ms. At 5 ms (librdkafka's default) a batch held about one record at 1,000 events/s,
 * and the brokers pay per request; 50 ms cut their CPU by about half (docs/KAFKA.md, "Producers'
 * linger"; measured in docs/MEASUREMENTS.md). A transactional producer's commit sends at once.
 */
export const DEFAULT_LINGER_MS = 50;

export type RdConfig = Record<string, string | number | boolean>;

export interface ResolvedTimeouts {
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  socketTimeoutMs: number;
  sessionTimeoutMs: number;
  transactionTimeoutMs: number;
}

/** Applies defaults and rejects values librdkafka would refuse later with a less helpful message. */
export function resolveTimeouts(o: KafkaClientOptions): ResolvedTimeouts {
  const t: ResolvedTimeouts = {
    connectTimeoutMs: o.connectTimeoutMs ?? DEFAULT_TIMEOUTS.connectTimeoutMs,
    requestTimeoutMs: o.requestTimeoutMs ?? DEFAULT_TIMEOUTS.requestTimeoutMs,
    socketTimeoutMs: o.socketTimeoutMs ?? DEFAULT_TIMEOUTS.socketTimeoutMs,
    sessionTimeoutMs: o.sessionTimeoutMs ?? DEFAULT_TIMEOUTS.sessionTimeoutMs,
    transactionTimeoutMs: o.transactionTimeoutMs ?? DEFAULT_TIMEOUTS.transactionTimeoutMs,
  };
  const ranges: Record<keyof ResolvedTimeouts, [number, number]> = {
    connectTimeoutMs: [1000, 300000],
    requestTimeoutMs: [100, 900000],
    socketTimeoutMs: [10, 300000],
    sessionTimeoutMs: [1000, 3600000],
    transactionTimeoutMs: [1000, 900000],
  };
  for (const [key, [min, max]] of Object.entries(ranges) as [
    keyof ResolvedTimeouts,
    [number, number],
  ][])
    intInRange(key, t[key], min, max);
  // librdkafka: socket.timeout.ms must be at least 100 ms lower than transaction.timeout.ms.
  if (t.socketTimeoutMs > t.transactionTimeoutMs - 100) {
    throw new Error(
      `kafka-tx: option socketTimeoutMs=${t.socketTimeoutMs} is invalid, expected at most transactionTimeoutMs - 100 (${t.transactionTimeoutMs - 100})`,
    );
  }
  if (o.bootstrap.trim() === '')
    throw new Error('kafka-tx: option bootstrap="" is invalid, expected host:port[,host:port...]');
  return t;
}

/** Settings shared by every client. */
export function baseConfig(o: KafkaClientOptions): RdConfig {
  const t = resolveTimeouts(o);
  return {
    'bootstrap.servers': o.bootstrap,
    'client.id': o.clientId,
    'socket.connection.setup.timeout.ms': t.connectTimeoutMs,
    'api.version.request.timeout.ms': t.connectTimeoutMs,
    'socket.timeout.ms': t.socketTimeoutMs,
    'socket.keepalive.enable': true,
    // Reconnect to a restarted broker within a second instead of backing off to 10 s.
    'reconnect.backoff.ms': 100,
    'reconnect.backoff.max.ms': 1000,
    'retry.backoff.ms': 100,
    'retry.backoff.max.ms': 1000,
    // Learn about leader moves and new partitions within seconds even when no request fails.
    'topic.metadata.refresh.interval.ms': 10000,
    'metadata.max.age.ms': 30000,
    'topic.metadata.refresh.fast.interval.ms': 100,
    'log.connection.close': false,
  };
}

/** Producer settings: idempotent, acks from all in-sync replicas, Java-compatible key partitioning. */
export function producerConfig(o: KafkaClientOptions, transactionalId?: string): RdConfig {
  const t = resolveTimeouts(o);
  const c: RdConfig = {
    ...baseConfig(o),
    'enable.idempotence': true,
    acks: 'all',
    'request.timeout.ms': t.requestTimeoutMs,
    'linger.ms': lingerMs(o),
    // Same partition for the same key as Java producers (Flink), random for null keys.
    partitioner: 'murmur2_random',
    'compression.type': 'lz4',
  };
  if (transactionalId !== undefined) {
    c['transactional.id'] = transactionalId;
    c['transaction.timeout.ms'] = t.transactionTimeoutMs;
    // The coordinator answers CONCURRENT_TRANSACTIONS while the previous commit's markers are
    // still being written, and librdkafka retries after retry.backoff.ms: at 100 ms that cost
    // ~100 ms per transaction in sendOffsets (measured); the Java client uses 20 ms for this case.
    c['retry.backoff.ms'] = 20;
  } else {
    // An idempotent producer reports a record as failed (a value, not an exception) after this long.
    c['message.timeout.ms'] = 60000;
  }
  return c;
}

export interface ConsumerSettings {
  groupId: string;
  isolation: 'read_committed' | 'read_uncommitted';
  startFrom: 'earliest' | 'latest';
}

/** Consumer settings: manual offsets only (committed by the caller after the work is durable). */
export function consumerConfig(o: KafkaClientOptions, s: ConsumerSettings): RdConfig {
  const t = resolveTimeouts(o);
  return {
    ...baseConfig(o),
    'group.id': s.groupId,
    'isolation.level': s.isolation,
    'auto.offset.reset': s.startFrom,
    'enable.auto.commit': false,
    'enable.auto.offset.store': false,
    'enable.partition.eof': false,
    'session.timeout.ms': t.sessionTimeoutMs,
    'heartbeat.interval.ms': Math.max(100, Math.floor(t.sessionTimeoutMs / 3)),
    'max.poll.interval.ms': Math.max(t.transactionTimeoutMs, t.sessionTimeoutMs + 1),
    // A dead group coordinator is re-queried every tenth of this: 1 s.
    'coordinator.query.interval.ms': 10000,
    // How long a broker holds a fetch that finds no new committed record. Data ends the wait at once
    // (fetch.min.bytes 1), so this sets only how often an idle consumer asks each broker: 2 times a
    // second, not 10 (the idle stack's cost, docs/MEASUREMENTS.md).
    'fetch.wait.max.ms': 500,
    'fetch.error.backoff.ms': 100,
    // Eager assignment: a revocation takes every partition, so the loop never has to reason
    // about a partial assignment while a transaction is open.
    'partition.assignment.strategy': 'range',
  };
}

/** The producer's linger.ms, DEFAULT_LINGER_MS unless the caller asks for another. */
export function lingerMs(o: KafkaClientOptions): number {
  return intInRange('lingerMs', o.lingerMs ?? DEFAULT_LINGER_MS, 0, 10_000);
}

/** An integer option in [min, max]; the error names the option, the value and the range. */
function intInRange(name: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max)
    throw new Error(
      `kafka-tx: option ${name}=${String(v)} is invalid, expected an integer in [${min}, ${max}]`,
    );
  return v;
}

/** A positive integer option with a default; the error names the option, the value and what was expected. */
export function positiveIntOption(name: string, v: number | undefined, dflt: number): number {
  const x = v ?? dflt;
  if (!Number.isInteger(x) || x <= 0)
    throw new Error(
      `kafka-tx: option ${name}=${String(v)} is invalid, expected a positive integer`,
    );
  return x;
}
