/** Probe configuration: parsed once from flags and environment, failing fast on a bad value. */

import { z } from 'zod';
import { TOPICS } from '@clickstream/contracts';
import { DEFAULT_DATABASE } from '@clickstream/warehouse';
import {
  ConfigError,
  numberIn,
  parseOptions,
  SEE_HELP_MESSAGES,
  usage as formatUsage,
  type OptionTable,
} from '@clickstream/cli-config';
import { LAYER_NAMES, type LayerName } from './layers';

export { ConfigError };

const intIn = (min: number, max: number) => {
  const expected = `an integer from ${min} to ${max}`;
  return z.coerce.number({ error: expected }).int(expected).min(min, expected).max(max, expected);
};
const hostPort = /^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/;

const ConfigSchema = z.object({
  bootstrap: z
    .string()
    .refine(
      (s) => s.split(',').every((p) => hostPort.test(p.trim())),
      'a comma-separated list of host:port',
    ),
  topic: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name'),
  intervalMs: intIn(100, 60_000),
  intervalJitter: numberIn(0, 0.9),
  pollMs: intIn(50, 60_000),
  windowsPollMs: intIn(50, 60_000),
  sloThresholdMs: intIn(100, 600_000),
  forgetAfterMs: intIn(1_000, 86_400_000),
  layers: z
    .string()
    .transform((s) => s.split(',').map((l) => l.trim()))
    .pipe(
      z
        .array(z.enum(LAYER_NAMES, `a comma-separated list of ${LAYER_NAMES.join(', ')}`))
        .min(1, 'at least one layer'),
    ),
  runId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{0,100}$/, 'an id of up to 100 chars from [A-Za-z0-9._-]'),
  metricsHost: z.string().min(1, 'a listen address'),
  metricsPort: intIn(0, 65_535),
  clickhouseUrl: z.url(),
  collectorUrl: z.union([z.literal(''), z.url()], "empty, or the HTTP collector's base URL"),
  database: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a ClickHouse identifier'),
  logLevel: z.enum(
    ['trace', 'debug', 'info', 'warn', 'error', 'fatal'],
    'one of trace, debug, info, warn, error, fatal',
  ),
});

export type ProbeConfig = Omit<z.infer<typeof ConfigSchema>, 'layers'> & {
  layers: LayerName[];
};

const OPTIONS = {
  bootstrap: {
    flag: '--bootstrap',
    env: 'KAFKA_BOOTSTRAP',
    default: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    help: 'Kafka bootstrap servers, host:port[,host:port...]',
  },
  topic: {
    flag: '--topic',
    env: 'PROBE_TOPIC',
    default: TOPICS.raw,
    help: 'the front door: topic the probe events are sent to',
  },
  intervalMs: {
    flag: '--interval-ms',
    env: 'PROBE_INTERVAL_MS',
    default: '5000',
    help: 'one probe event every this many ms',
  },
  intervalJitter: {
    flag: '--interval-jitter',
    env: 'PROBE_INTERVAL_JITTER',
    default: '0.5',
    help: 'each gap between sends is the interval times a uniform factor in [1 - j, 1 + j]: the mean stays the interval, and the sends do not lock in phase with a periodic stage such as the 5 s Flink checkpoint (0 = fixed gaps)',
  },
  pollMs: {
    flag: '--poll-ms',
    env: 'PROBE_POLL_MS',
    default: '250',
    help: 'how often ClickHouse is asked which probe events the valid and clean tables hold, while some are unseen, ms (bounds the freshness resolution)',
  },
  windowsPollMs: {
    flag: '--windows-poll-ms',
    env: 'PROBE_WINDOWS_POLL_MS',
    default: '1000',
    help: 'the same for the windows table, whose freshness is some seconds (its events are unseen nearly all the time, so a fast poll would query all the time)',
  },
  sloThresholdMs: {
    flag: '--slo-threshold-ms',
    env: 'PROBE_SLO_THRESHOLD_MS',
    default: '10000',
    help: 'an event seen within this many ms of its send is good for the SLO; judged at that deadline',
  },
  forgetAfterMs: {
    flag: '--forget-after-ms',
    env: 'PROBE_FORGET_AFTER_MS',
    default: '600000',
    help: 'stop watching for an event this long after its send (counted as lost)',
  },
  layers: {
    flag: '--layers',
    env: 'PROBE_LAYERS',
    default: LAYER_NAMES.join(','),
    help: `ClickHouse layers watched (${LAYER_NAMES.join(', ')})`,
  },
  runId: {
    flag: '--run-id',
    env: 'PROBE_RUN_ID',
    default: '',
    help: 'suffix of the run id (always prefixed with "probe-"); empty = the start time in ms',
  },
  metricsHost: {
    flag: '--metrics-host',
    env: 'PROBE_METRICS_HOST',
    default: '127.0.0.1',
    help: 'address of the /metrics and /healthz server',
  },
  metricsPort: {
    flag: '--metrics-port',
    env: 'PROBE_METRICS_PORT',
    default: '9401',
    help: 'port of the /metrics and /healthz server (0 = any free port)',
  },
  clickhouseUrl: {
    flag: '--clickhouse-url',
    env: 'CLICKHOUSE_URL',
    default: 'http://127.0.0.1:18123',
    help: 'ClickHouse HTTP URL',
  },
  collectorUrl: {
    flag: '--collector-url',
    env: 'PROBE_COLLECTOR_URL',
    default: '',
    help: 'also send through the HTTP collector at this base URL (every other probe); empty = Kafka only',
  },
  database: {
    flag: '--database',
    env: 'PROBE_DATABASE',
    default: DEFAULT_DATABASE,
    help: 'ClickHouse database of the event tables',
  },
  logLevel: { flag: '--log-level', env: 'LOG_LEVEL', default: 'info', help: 'pino level' },
} as const satisfies OptionTable;

const HEADER = `Usage: node apps/probe/dist/main.js [options]

Sends one synthetic event every --interval-ms through the front door and watches for it in
ClickHouse; exports freshness and "age of the newest probe event seen" per layer on /metrics.
Every option can also be set by its environment variable; flags win.
`;

export function usage(): string {
  return formatUsage(OPTIONS, HEADER);
}

export type ParsedArgs = { help: true } | { help: false; config: ProbeConfig };

/** Flags win over environment, environment over defaults; the first invalid value throws a ConfigError. */
export function parseConfig(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): ParsedArgs {
  const parsed = parseOptions(OPTIONS, ConfigSchema, argv, env, {
    header: HEADER,
    // An empty variable has always been a value here (and then fails validation), not "unset".
    emptyEnvIsUnset: false,
    messages: SEE_HELP_MESSAGES,
  });
  if (parsed.help) return { help: true };
  return { help: false, config: { ...parsed.config, layers: [...new Set(parsed.config.layers)] } };
}

/** The real process's configuration; the only reader of process.env in the probe. */
export function loadConfig(argv: readonly string[] = process.argv.slice(2)): ParsedArgs {
  return parseConfig(argv, process.env);
}
