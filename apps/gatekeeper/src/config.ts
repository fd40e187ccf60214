/** Gatekeeper configuration: parsed once from flags and environment with zod, failing fast on the first bad value. */

import { z } from 'zod';
import { TOPICS } from '@clickstream/contracts';
import {
  ConfigError,
  hostPortList,
  intIn,
  logLevel,
  parseOptions,
  topicName,
  usage as formatUsage,
  type OptionTable,
} from '@clickstream/cli-config';

const OPTIONS = {
  bootstrap: {
    flag: '--bootstrap',
    env: 'GATEKEEPER_BOOTSTRAP',
    default: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    help: 'Kafka bootstrap servers, host:port[,host:port...]',
  },
  groupId: {
    flag: '--group-id',
    env: 'GATEKEEPER_GROUP_ID',
    default: 'gatekeeper',
    help: 'consumer group shared by all instances',
  },
  instanceId: {
    flag: '--instance-id',
    env: 'GATEKEEPER_INSTANCE_ID',
    default: '0',
    help: 'stable id of this instance; transactional id = gatekeeper-<instance-id> (a restart with the same id fences its zombie)',
  },
  rawTopic: {
    flag: '--raw-topic',
    env: 'GATEKEEPER_RAW_TOPIC',
    default: TOPICS.raw,
    help: 'input topic',
  },
  validTopic: {
    flag: '--valid-topic',
    env: 'GATEKEEPER_VALID_TOPIC',
    default: TOPICS.valid,
    help: 'output topic for valid events (same partition as the raw record)',
  },
  dlqTopic: {
    flag: '--dlq-topic',
    env: 'GATEKEEPER_DLQ_TOPIC',
    default: TOPICS.dlq,
    help: 'dead-letter topic (original bytes, reason headers)',
  },
  metricsHost: {
    flag: '--metrics-host',
    env: 'GATEKEEPER_METRICS_HOST',
    default: '127.0.0.1',
    help: 'address of the /metrics and /healthz server',
  },
  metricsPort: {
    flag: '--metrics-port',
    env: 'GATEKEEPER_METRICS_PORT',
    default: '9400',
    help: 'port of the /metrics and /healthz server (0 = any free port)',
  },
  batchRecords: {
    flag: '--batch-records',
    env: 'GATEKEEPER_BATCH_RECORDS',
    default: '500',
    help: 'maximum input records per transaction',
  },
  batchMs: {
    flag: '--batch-ms',
    env: 'GATEKEEPER_BATCH_MS',
    // Each transaction costs the brokers a few replicated coordinator writes and a marker per
    // partition written; 250 ms instead of 100 ms cut the three brokers' CPU at 2,000 events/s by
    // about a fifth with no change in probe freshness (docs/MEASUREMENTS.md, "The gatekeeper's
    // transaction window").
    default: '250',
    help: 'maximum time a transaction collects records, ms',
  },
  lagPollMs: {
    flag: '--lag-poll-ms',
    env: 'GATEKEEPER_LAG_POLL_MS',
    default: '5000',
    help: 'how often the consumer lag gauge is refreshed, ms',
  },
  shutdownGraceMs: {
    flag: '--shutdown-grace-ms',
    env: 'GATEKEEPER_SHUTDOWN_GRACE_MS',
    default: '30000',
    help: 'after SIGTERM, exit 1 if the open transaction has not ended within this time',
  },
  stallExitMs: {
    flag: '--stall-exit-ms',
    env: 'GATEKEEPER_STALL_EXIT_MS',
    default: '15000',
    help: 'kill this process (SIGKILL) when one transaction has been in flight this long (a hung client; a restart fences it safely); 0 = never',
  },
  loopRestartMs: {
    flag: '--loop-restart-ms',
    env: 'GATEKEEPER_LOOP_RESTART_MS',
    default: '1000',
    help: 'first back-off before restarting the Kafka loop after it failed (doubles up to 30 s)',
  },
  connectTimeoutMs: {
    flag: '--connect-timeout-ms',
    env: 'GATEKEEPER_CONNECT_TIMEOUT_MS',
    help: 'librdkafka connection setup timeout, ms (kafka-tx default if unset)',
  },
  requestTimeoutMs: {
    flag: '--request-timeout-ms',
    env: 'GATEKEEPER_REQUEST_TIMEOUT_MS',
    help: 'librdkafka request timeout, ms, also of each transactional call (kafka-tx default if unset)',
  },
  socketTimeoutMs: {
    flag: '--socket-timeout-ms',
    env: 'GATEKEEPER_SOCKET_TIMEOUT_MS',
    help: 'librdkafka socket.timeout.ms (kafka-tx default if unset; must stay below the transaction timeout)',
  },
  transactionTimeoutMs: {
    flag: '--transaction-timeout-ms',
    env: 'GATEKEEPER_TRANSACTION_TIMEOUT_MS',
    help: 'producer transaction.timeout.ms (kafka-tx default if unset)',
  },
  logLevel: {
    flag: '--log-level',
    env: 'GATEKEEPER_LOG_LEVEL',
    default: 'info',
    help: 'pino level: fatal, error, warn, info, debug, trace, silent',
  },
} as const satisfies OptionTable;

const ConfigSchema = z.object({
  bootstrap: hostPortList,
  groupId: z.string().min(1, 'a non-empty consumer group id'),
  instanceId: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'an id of 1-64 chars from [A-Za-z0-9._-]'),
  rawTopic: topicName,
  validTopic: topicName,
  dlqTopic: topicName,
  metricsHost: z.string().min(1, 'a listen address'),
  metricsPort: intIn(0, 65535),
  batchRecords: intIn(1, 100_000),
  batchMs: intIn(1, 60_000),
  lagPollMs: intIn(100, 600_000),
  shutdownGraceMs: intIn(100, 600_000),
  stallExitMs: intIn(0, 3_600_000),
  loopRestartMs: intIn(10, 60_000),
  connectTimeoutMs: intIn(100, 600_000).optional(),
  requestTimeoutMs: intIn(100, 900_000).optional(),
  socketTimeoutMs: intIn(10, 300_000).optional(),
  transactionTimeoutMs: intIn(1000, 900_000).optional(),
  logLevel,
});

export type GatekeeperConfig = z.infer<typeof ConfigSchema> & {
  /** Derived: one transactional id per instance, so fencing is per instance slot. */
  transactionalId: string;
};

export { ConfigError };

export type ParsedArgs = { help: true } | { help: false; config: GatekeeperConfig };

const HEADER = `Usage: node apps/gatekeeper/dist/main.js [options]

Every option can also be set by its environment variable; flags win.
`;

export function usage(): string {
  return formatUsage(OPTIONS, HEADER);
}

/** Flags win over environment, environment over defaults; the first invalid value throws a ConfigError. */
export function parseConfig(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): ParsedArgs {
  const parsed = parseOptions(OPTIONS, ConfigSchema, argv, env, { header: HEADER });
  if (parsed.help) return { help: true };
  const c = parsed.config;
  return { help: false, config: { ...c, transactionalId: `gatekeeper-${c.instanceId}` } };
}

/** The real process's configuration; the only reader of process.env in the gatekeeper. */
export function loadConfig(argv: readonly string[] = process.argv.slice(2)): ParsedArgs {
  return parseConfig(argv, process.env);
}
