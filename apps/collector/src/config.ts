/** Collector configuration: parsed once from flags and environment, failing fast on a bad value. */

import { z } from 'zod';
import { TOPICS } from '@clickstream/contracts';
import {
  ConfigError,
  parseOptions,
  SEE_HELP_MESSAGES,
  usage as formatUsage,
  type OptionTable,
} from '@clickstream/cli-config';

export { ConfigError };

const intIn = (min: number, max: number) => {
  const expected = `an integer from ${min} to ${max}`;
  return z.coerce.number({ error: expected }).int(expected).min(min, expected).max(max, expected);
};
const hostPort = /^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/;

const ConfigSchema = z
  .object({
    bootstrap: z
      .string()
      .refine(
        (s) => s.split(',').every((p) => hostPort.test(p.trim())),
        'a comma-separated list of host:port',
      ),
    topic: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name'),
    host: z.string().min(1, 'a listen address'),
    port: intIn(0, 65_535),
    metricsHost: z.string().min(1, 'a listen address'),
    metricsPort: intIn(0, 65_535),
    maxBodyBytes: intIn(1024, 64 * 1024 * 1024),
    maxEvents: intIn(1, 100_000),
    maxRecordBytes: intIn(1024, 1_000_000),
    maxHeaderBytes: intIn(1024, 1024 * 1024),
    requestTimeoutMs: intIn(100, 600_000),
    keepAliveTimeoutMs: intIn(100, 600_000),
    maxInFlightEvents: intIn(1, 10_000_000),
    ackTimeoutMs: intIn(100, 600_000),
    retryAfterSeconds: intIn(1, 3600),
    corsOrigins: z.string().min(1, "'*' or a comma-separated list of origins"),
    logLevel: z.enum(
      ['trace', 'debug', 'info', 'warn', 'error', 'fatal'],
      'one of trace, debug, info, warn, error, fatal',
    ),
  })
  .refine((c) => c.maxEvents <= c.maxInFlightEvents, {
    path: ['maxEvents'],
    message: 'at most --max-in-flight-events (a full request must fit the in-flight bound)',
  });

export type CollectorConfig = z.infer<typeof ConfigSchema>;

const OPTIONS = {
  bootstrap: {
    flag: '--bootstrap',
    env: 'KAFKA_BOOTSTRAP',
    default: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    help: 'Kafka bootstrap servers, host:port[,host:port...]',
  },
  topic: {
    flag: '--topic',
    env: 'COLLECTOR_TOPIC',
    default: TOPICS.raw,
    help: 'the topic every collected event goes to',
  },
  host: {
    flag: '--host',
    env: 'COLLECTOR_HOST',
    default: '127.0.0.1',
    help: 'address of the collector (POST /v1/events, POST|GET /v1/beacon)',
  },
  port: {
    flag: '--port',
    env: 'COLLECTOR_PORT',
    default: '9404',
    help: 'port of the collector (0 = any free port)',
  },
  metricsHost: {
    flag: '--metrics-host',
    env: 'COLLECTOR_METRICS_HOST',
    default: '127.0.0.1',
    help: 'address of the /metrics and /healthz server',
  },
  metricsPort: {
    flag: '--metrics-port',
    env: 'COLLECTOR_METRICS_PORT',
    default: '9405',
    help: 'port of the /metrics and /healthz server (0 = any free port)',
  },
  maxBodyBytes: {
    flag: '--max-body-bytes',
    env: 'COLLECTOR_MAX_BODY_BYTES',
    default: String(1024 * 1024),
    help: 'largest body, compressed and after gunzip (413 above)',
  },
  maxEvents: {
    flag: '--max-events',
    env: 'COLLECTOR_MAX_EVENTS',
    default: '1000',
    help: 'most events in one request (413 above)',
  },
  maxRecordBytes: {
    flag: '--max-record-bytes',
    env: 'COLLECTOR_MAX_RECORD_BYTES',
    default: String(512 * 1024),
    help: 'largest single event carried to Kafka (413 above; the contract limit stays in the gatekeeper)',
  },
  maxHeaderBytes: {
    flag: '--max-header-bytes',
    env: 'COLLECTOR_MAX_HEADER_BYTES',
    default: String(16 * 1024),
    help: 'largest request head, request line plus headers (431 above)',
  },
  requestTimeoutMs: {
    flag: '--request-timeout-ms',
    env: 'COLLECTOR_REQUEST_TIMEOUT_MS',
    default: '10000',
    help: 'a client must send its whole request within this (408 and the connection closed after)',
  },
  keepAliveTimeoutMs: {
    flag: '--keep-alive-timeout-ms',
    env: 'COLLECTOR_KEEP_ALIVE_TIMEOUT_MS',
    default: '65000',
    help: "idle keep-alive connections are closed after this (advertised in Keep-Alive; longer than the clients' own idle timeouts, so that clients close first)",
  },
  maxInFlightEvents: {
    flag: '--max-in-flight-events',
    env: 'COLLECTOR_MAX_IN_FLIGHT_EVENTS',
    default: '50000',
    help: 'events handed to Kafka without all their delivery reports; a request past it gets 503',
  },
  ackTimeoutMs: {
    flag: '--ack-timeout-ms',
    env: 'COLLECTOR_ACK_TIMEOUT_MS',
    default: '10000',
    help: 'a request whose delivery reports are not all in within this gets 503 (outcome unknown)',
  },
  retryAfterSeconds: {
    flag: '--retry-after-s',
    env: 'COLLECTOR_RETRY_AFTER_S',
    default: '1',
    help: 'Retry-After of every 503, seconds',
  },
  corsOrigins: {
    flag: '--cors-origins',
    env: 'COLLECTOR_CORS_ORIGINS',
    default: '*',
    help: "origins allowed to call the collector from a browser: '*' or a comma-separated list",
  },
  logLevel: { flag: '--log-level', env: 'LOG_LEVEL', default: 'info', help: 'pino level' },
} as const satisfies OptionTable;

const HEADER = `Usage: node apps/collector/dist/main.js [options]

The HTTP collector: POST /v1/events (JSON array, optionally gzip; Avro single-object records;
${'application/vnd.clickstream.frames'}), POST|GET /v1/beacon for browsers. Answers 2xx only
after Kafka acknowledged every event of the request (acks=all), 503 + Retry-After otherwise.
Every option can also be set by its environment variable; flags win.
`;

export function usage(): string {
  return formatUsage(OPTIONS, HEADER);
}

export type ParsedArgs = { help: true } | { help: false; config: CollectorConfig };

/** Flags win over environment, environment over defaults; the first invalid value throws a ConfigError. */
export function parseConfig(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): ParsedArgs {
  const parsed = parseOptions(OPTIONS, ConfigSchema, argv, env, {
    header: HEADER,
    messages: SEE_HELP_MESSAGES,
  });
  if (parsed.help) return { help: true };
  return { help: false, config: parsed.config };
}

/** The real process's configuration; the only reader of process.env in the collector. */
export function loadConfig(argv: readonly string[] = process.argv.slice(2)): ParsedArgs {
  return parseConfig(argv, process.env);
}
