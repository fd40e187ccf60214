/** Generator configuration: parsed once from flags and environment with zod, failing fast on the first bad value (flag, value, what was expected). */

import { LOG_FORMATS, type LogFormat } from './terminal';
import * as path from 'path';
import { z } from 'zod';
import { DEFAULT_LATENESS_MS, TOPICS, type FaultRatios } from '@clickstream/contracts';
import { RUN_ID_PATTERN } from '@clickstream/ledger';
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
import { FaultPlan } from './faults';
import type { RunOptions } from './run';

const OPTIONS = {
  seed: {
    flag: '--seed',
    env: 'GENERATOR_SEED',
    default: '1',
    help: 'PRNG seed (integer); with the same options, the same events and faults',
  },
  runId: {
    flag: '--run-id',
    env: 'GENERATOR_RUN_ID',
    help: 'run id (default gen-<seed>-<start-time>); names results/runs/<run-id>/',
  },
  startTime: {
    flag: '--start-time',
    env: 'GENERATOR_START_TIME',
    help: 'start of the run clock, epoch ms or ISO 8601 (default now); fix it for byte-identical dry runs',
  },
  rate: {
    flag: '--rate',
    env: 'GENERATOR_RATE',
    default: '1000',
    help: 'target events/s (at the start of a ramp)',
  },
  rampTo: {
    flag: '--ramp-to',
    env: 'GENERATOR_RAMP_TO',
    help: 'target events/s at the end: the rate moves linearly from --rate (needs --duration or --count)',
  },
  duration: {
    flag: '--duration',
    env: 'GENERATOR_DURATION',
    help: 'run length, e.g. 1500ms, 20s, 5m, 1h (duplicates due later are sent right after)',
  },
  count: {
    flag: '--count',
    env: 'GENERATOR_COUNT',
    help: 'total sends, duplicates and poison included (exact)',
  },
  dryRun: {
    flag: '--dry-run',
    env: 'GENERATOR_DRY_RUN',
    default: 'false',
    boolean: true,
    help: 'write the ledger without Kafka (delivery not_sent, virtual clock, as fast as possible)',
  },
  bootstrap: {
    flag: '--bootstrap',
    env: 'GENERATOR_BOOTSTRAP',
    default: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    help: 'Kafka bootstrap servers, host:port[,host:port...]',
  },
  topic: {
    flag: '--topic',
    env: 'GENERATOR_TOPIC',
    default: TOPICS.raw,
    help: 'topic to send to; it must exist (the brokers create no topic on demand)',
  },
  via: {
    flag: '--via',
    env: 'GENERATOR_VIA',
    default: 'kafka',
    help: "kafka: the idempotent producer; http: POST to the collector (--collector-url; --topic is then the collector's)",
  },
  collectorUrl: {
    flag: '--collector-url',
    env: 'GENERATOR_COLLECTOR_URL',
    default: 'http://127.0.0.1:9404/v1/events',
    help: 'the collector endpoint of --via http',
  },
  latenessMs: {
    flag: '--lateness-ms',
    env: 'GENERATOR_LATENESS_MS',
    default: String(DEFAULT_LATENESS_MS),
    help: 'lateness bound L, ms (on time iff event_time >= send_time - L)',
  },
  dupRatio: {
    flag: '--dup-ratio',
    env: 'GENERATOR_DUP_RATIO',
    default: '0.02',
    help: 'share of sends that are duplicates of an earlier send',
  },
  outOfOrderRatio: {
    flag: '--out-of-order-ratio',
    env: 'GENERATOR_OUT_OF_ORDER_RATIO',
    default: '0.05',
    help: 'share of sends with event_time jittered back within L (on time)',
  },
  lateRatio: {
    flag: '--late-ratio',
    env: 'GENERATOR_LATE_RATIO',
    default: '0.01',
    help: 'share of sends with event_time minutes behind (late)',
  },
  edgeRatio: {
    flag: '--edge-ratio',
    env: 'GENERATOR_EDGE_RATIO',
    default: '0.01',
    help: 'share of sends with event_time within 50 ms of L behind, either side (lateness_edge)',
  },
  mergeRatio: {
    flag: '--merge-ratio',
    env: 'GENERATOR_MERGE_RATIO',
    default: '0.003',
    help: 'share of sends that bridge two sessions of one session id with an out-of-order event (session_merge; each adds two plain sends)',
  },
  poisonRandomRatio: {
    flag: '--poison-random-ratio',
    env: 'GENERATOR_POISON_RANDOM_RATIO',
    default: '0.002',
    help: 'share of sends that are random bytes',
  },
  poisonTruncatedRatio: {
    flag: '--poison-truncated-ratio',
    env: 'GENERATOR_POISON_TRUNCATED_RATIO',
    default: '0.002',
    help: 'share of sends that are truncated Avro',
  },
  poisonFingerprintRatio: {
    flag: '--poison-fingerprint-ratio',
    env: 'GENERATOR_POISON_FINGERPRINT_RATIO',
    default: '0.002',
    help: 'share of sends with an unknown schema fingerprint',
  },
  poisonMagicRatio: {
    flag: '--poison-magic-ratio',
    env: 'GENERATOR_POISON_MAGIC_RATIO',
    default: '0.002',
    help: 'share of sends with bad magic bytes',
  },
  poisonContractRatio: {
    flag: '--poison-contract-ratio',
    env: 'GENERATOR_POISON_CONTRACT_RATIO',
    default: '0.004',
    help: 'share of sends that decode but break the contract (7 reasons, in turn)',
  },
  poisonMalformedRatio: {
    flag: '--poison-malformed-ratio',
    env: 'GENERATOR_POISON_MALFORMED_RATIO',
    default: '0.002',
    help: 'share of sends that are empty, oversized, have trailing bytes or a malformed body (in turn)',
  },
  maxDupDelay: {
    flag: '--max-dup-delay',
    env: 'GENERATOR_MAX_DUP_DELAY',
    default: '5m',
    help: 'longest delay between an event and its duplicate (e.g. 30s, 5m); at most --dedup-ttl',
  },
  dedupTtl: {
    flag: '--dedup-ttl',
    env: 'GENERATOR_DEDUP_TTL',
    default: '1h',
    help: "the clean job's dedup TTL (its --dedup-ttl-ms), recorded in the manifest",
  },
  v1Share: {
    flag: '--v1-share',
    env: 'GENERATOR_V1_SHARE',
    default: '0.2',
    help: 'share of shopper sessions whose client writes schema v1',
  },
  sessions: {
    flag: '--sessions',
    env: 'GENERATOR_SESSIONS',
    help: 'concurrent shopper sessions (default 5 x rate, 10..100000: a session sends every ~5 s)',
  },
  resultsDir: {
    flag: '--results-dir',
    env: 'GENERATOR_RESULTS_DIR',
    default: 'results',
    help: 'results directory; the ledger goes to <dir>/runs/<run-id>/',
  },
  maxBatch: {
    flag: '--max-batch',
    env: 'GENERATOR_MAX_BATCH',
    default: '1000',
    help: 'most records per producer call',
  },
  maxInFlight: {
    flag: '--max-in-flight',
    env: 'GENERATOR_MAX_IN_FLIGHT',
    default: '50000',
    help: 'most records awaiting their delivery report (beyond it the generator waits, and falls behind loudly)',
  },
  behindMs: {
    flag: '--behind-threshold-ms',
    env: 'GENERATOR_BEHIND_THRESHOLD_MS',
    default: '1000',
    help: 'lag behind schedule that counts as falling behind (warned, reported)',
  },
  logLevel: {
    flag: '--log-level',
    env: 'GENERATOR_LOG_LEVEL',
    default: 'info',
    help: 'pino level: fatal, error, warn, info, debug, trace, silent',
  },
  logFormat: {
    flag: '--log-format',
    env: 'GENERATOR_LOG_FORMAT',
    default: 'auto',
    help: 'auto (pretty with a live progress line on a terminal, plain lines elsewhere), pretty, plain or json',
  },
} as const satisfies OptionTable;

const num = (expected: string) =>
  z.coerce.number({ error: expected }).refine(Number.isFinite, expected);
const ratio = num('a ratio from 0 to 1').pipe(
  z.number().min(0, 'a ratio from 0 to 1').max(1, 'a ratio from 0 to 1'),
);
const positiveRate = num('a positive number of events/s up to 1000000').pipe(
  z
    .number()
    .positive('a positive number of events/s up to 1000000')
    .max(1_000_000, 'a positive number of events/s up to 1000000'),
);
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const duration = z
  .string()
  .regex(DURATION, 'a duration like 1500ms, 20s, 5m or 1h')
  .transform((s) => {
    const [, n, unit] = DURATION.exec(s) as RegExpExecArray;
    return Math.round(Number(n) * (UNIT_MS[unit as string] as number));
  });
const instant = z.string().transform((s, ctx) => {
  const t = /^\d+$/.test(s) ? Number(s) : Date.parse(s);
  if (!Number.isSafeInteger(t) || t < 0) {
    ctx.addIssue({ code: 'custom', message: 'epoch milliseconds or an ISO 8601 date-time' });
    return z.NEVER;
  }
  return t;
});
const bool = z
  .enum(['true', 'false', '1', '0'], 'true or false')
  .transform((s) => s === 'true' || s === '1');

const ConfigSchema = z.object({
  seed: intIn(-2147483648, 4294967295),
  runId: z.string().regex(RUN_ID_PATTERN, `a run id matching ${RUN_ID_PATTERN.source}`).optional(),
  startTime: instant.optional(),
  rate: positiveRate,
  rampTo: positiveRate.optional(),
  duration: duration.optional(),
  count: intIn(1, 1_000_000_000).optional(),
  dryRun: bool,
  bootstrap: hostPortList,
  topic: topicName,
  via: z.enum(['kafka', 'http'], 'kafka or http'),
  collectorUrl: z.url('an http(s) URL'),
  latenessMs: intIn(0, 3_600_000),
  dupRatio: ratio,
  outOfOrderRatio: ratio,
  lateRatio: ratio,
  edgeRatio: ratio,
  mergeRatio: ratio,
  poisonRandomRatio: ratio,
  poisonTruncatedRatio: ratio,
  poisonFingerprintRatio: ratio,
  poisonMagicRatio: ratio,
  poisonContractRatio: ratio,
  poisonMalformedRatio: ratio,
  maxDupDelay: duration,
  dedupTtl: duration,
  v1Share: ratio,
  sessions: intIn(1, 1_000_000).optional(),
  resultsDir: z.string().min(1, 'a directory'),
  maxBatch: intIn(1, 100_000),
  maxInFlight: intIn(1, 10_000_000),
  behindMs: intIn(0, 3_600_000),
  logLevel,
  logFormat: z.enum(LOG_FORMATS, `one of ${LOG_FORMATS.join(', ')}`),
});

export interface GeneratorConfig {
  run: RunOptions;
  dryRun: boolean;
  /** Where a live run sends: Kafka directly, or the HTTP collector. */
  via: 'kafka' | 'http';
  collectorUrl: string;
  logLevel: string;
  logFormat: LogFormat;
}

export { ConfigError };

export type ParsedArgs = { help: true } | { help: false; config: GeneratorConfig };

const HEADER = `Usage: node apps/generator/dist/main.js [options]

Every option can also be set by its environment variable; flags win.
`;

export function usage(): string {
  return formatUsage(OPTIONS, HEADER);
}

function fail(source: string, value: unknown, expected: string): never {
  throw new ConfigError(`${source}: got ${JSON.stringify(value ?? null)}; expected ${expected}`);
}

/** Flags win over environment, environment over defaults; the first invalid value throws a ConfigError. */
export function parseConfig(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  now: () => number = Date.now,
): ParsedArgs {
  const parsed = parseOptions(OPTIONS, ConfigSchema, argv, env, { header: HEADER });
  if (parsed.help) return { help: true };
  const { config: c, raw, source } = parsed;
  const ratios: FaultRatios = {
    duplicate: c.dupRatio,
    out_of_order: c.outOfOrderRatio,
    late: c.lateRatio,
    poison_random_bytes: c.poisonRandomRatio,
    poison_truncated: c.poisonTruncatedRatio,
    poison_unknown_fingerprint: c.poisonFingerprintRatio,
    poison_bad_magic: c.poisonMagicRatio,
    poison_contract: c.poisonContractRatio,
    poison_malformed: c.poisonMalformedRatio,
    lateness_edge: c.edgeRatio,
    session_merge: c.mergeRatio,
  };
  const sum = Object.values(ratios).reduce((a: number, b) => a + (b ?? 0), 0);
  if (sum > 1)
    fail(
      'fault ratios (--dup-ratio ... --poison-malformed-ratio)',
      Number(sum.toFixed(6)),
      'ratios that sum to at most 1',
    );
  try {
    new FaultPlan(ratios);
  } catch (err) {
    fail(
      source.dupRatio,
      raw.dupRatio,
      `a duplicate ratio the valid sends can feed (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  if (c.rampTo !== undefined && c.duration === undefined && c.count === undefined)
    fail(source.rampTo, raw.rampTo, 'a ramp over a bounded run: also set --duration or --count');
  if (c.dryRun && c.duration === undefined && c.count === undefined)
    fail(source.dryRun, raw.dryRun, 'a bounded dry run: also set --duration or --count');
  // The clean job drops a copy only while it remembers the first: a later duplicate would be
  // counted as a new event downstream, and the run could never reconcile exact.
  if (c.maxDupDelay > c.dedupTtl)
    fail(
      source.maxDupDelay,
      raw.maxDupDelay,
      `a delay within the dedup TTL ${JSON.stringify(raw.dedupTtl)} (${source.dedupTtl}): a later duplicate outlives the clean job's dedup state`,
    );
  const startTime = c.startTime ?? now();
  const rate = c.rate;
  return {
    help: false,
    config: {
      dryRun: c.dryRun,
      via: c.via,
      collectorUrl: c.collectorUrl,
      logLevel: c.logLevel,
      logFormat: c.logFormat,
      run: {
        seed: c.seed,
        runId: c.runId ?? `gen-${c.seed}-${startTime}`,
        startTime,
        rate,
        rampTo: c.rampTo ?? null,
        durationMs: c.duration ?? null,
        count: c.count ?? null,
        latenessMs: c.latenessMs,
        ratios,
        v1Share: c.v1Share,
        sessions:
          c.sessions ??
          Math.min(100_000, Math.max(10, Math.round(5 * Math.max(rate, c.rampTo ?? 0)))),
        maxDuplicateDelayMs: c.maxDupDelay,
        dedupTtlMs: c.dedupTtl,
        topic: c.topic,
        bootstrap: c.dryRun ? null : c.bootstrap,
        resultsDir: path.resolve(c.resultsDir),
        maxBatch: c.maxBatch,
        maxInFlight: c.maxInFlight,
        behindThresholdMs: c.behindMs,
      },
    },
  };
}

/** The real process's configuration; the only reader of process.env in the generator. */
export function loadConfig(argv: readonly string[] = process.argv.slice(2)): ParsedArgs {
  return parseConfig(argv, process.env);
}
