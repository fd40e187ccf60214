/** Experiment harness configuration: the command (an experiment's name, docs or goal) and its flags, parsed once with zod. */

import { z } from 'zod';
import {
  ConfigError,
  finiteNumber,
  hostPortList,
  parseOptions,
  usage as formatUsage,
  type OptionTable,
} from '@clickstream/cli-config';
import {
  CATALOGUE,
  describeCatalogue,
  ExperimentSchema,
  findExperiment,
  type Experiment,
} from './catalogue';
import { DEFAULT_DATABASE } from '@clickstream/warehouse';
import { GOAL_KEYS, type GoalKey } from './docs/goals';

export { ConfigError };

const optionalInt = (min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `an integer from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

const ConfigSchema = z.object({
  repeat: z.coerce
    .number({ error: 'an integer from 1 to 20' })
    .int('an integer from 1 to 20')
    .min(1, 'an integer from 1 to 20')
    .max(20, 'an integer from 1 to 20'),
  seed: optionalInt(1, 2 ** 31 - 1),
  rate: optionalInt(1, 100_000),
  baseline: optionalInt(10, 3600),
  hold: optionalInt(0, 3600),
  after: optionalInt(10, 3600),
  reconcile: optionalInt(0, 3600),
  rung: optionalInt(10, 3600),
  rungs: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const list = v.split(',').map(Number);
      if (list.some((n) => !Number.isInteger(n) || n < 1)) {
        ctx.addIssue({ code: 'custom', message: 'a comma-separated list of positive integers' });
        return z.NEVER;
      }
      return list;
    }),
  resultsDir: z.string().min(1, 'a directory'),
  docsFile: z.string().min(1, 'a file'),
  prometheusUrl: z.url('an http(s) URL'),
  clickhouseUrl: z.url('an http(s) URL'),
  database: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a ClickHouse identifier'),
  bootstrap: hostPortList,
  logLevel: z.enum(
    ['trace', 'debug', 'info', 'warn', 'error', 'fatal'],
    'one of trace, debug, info, warn, error, fatal',
  ),
  key: z.enum(GOAL_KEYS, `one of ${GOAL_KEYS.join(', ')}`).optional(),
  value: finiteNumber.optional(),
  measuredBy: z.string().optional(),
});
export type Flags = z.infer<typeof ConfigSchema>;

const OPTIONS = {
  repeat: {
    flag: '--repeat',
    env: 'EXPERIMENT_REPEAT',
    default: '1',
    help: 'runs of the experiment, one after another',
  },
  seed: {
    flag: '--seed',
    env: 'EXPERIMENT_SEED',
    help: "the generator's seed of the first run (default: random; run k uses seed + k - 1)",
  },
  rate: {
    flag: '--rate',
    env: 'EXPERIMENT_RATE',
    help: "load, events/s (default: the catalogue's)",
  },
  baseline: { flag: '--baseline', help: 'seconds of healthy load before the fault' },
  hold: { flag: '--hold', help: 'seconds the fault is held (stall, partition, broker down)' },
  after: { flag: '--after', help: 'seconds of load after the restoration' },
  reconcile: { flag: '--reconcile', help: 'bound of tools/reconcile-wait, seconds' },
  rung: { flag: '--rung', help: 'load ladder: seconds per rung' },
  rungs: { flag: '--rungs', help: 'load ladder: rates, e.g. 1000,2000,4000' },
  resultsDir: {
    flag: '--results-dir',
    env: 'EXPERIMENT_RESULTS_DIR',
    default: 'results',
    help: 'results directory (runs/ and experiments/ under it)',
  },
  docsFile: {
    flag: '--docs-file',
    default: 'docs/MEASUREMENTS.md',
    help: 'docs, goal: the file whose generated sections (experiments; goals) are rewritten',
  },
  prometheusUrl: {
    flag: '--prometheus-url',
    env: 'PROMETHEUS_URL',
    default: 'http://127.0.0.1:9090',
    help: 'Prometheus (probe freshness, broker roles)',
  },
  clickhouseUrl: {
    flag: '--clickhouse-url',
    env: 'CLICKHOUSE_URL',
    default: 'http://127.0.0.1:18123',
    help: "ClickHouse HTTP URL (the run's gatekeeper stamps in events_valid)",
  },
  database: {
    flag: '--database',
    env: 'CLICKHOUSE_DATABASE',
    default: DEFAULT_DATABASE,
    help: 'ClickHouse database of the pipeline',
  },
  bootstrap: {
    flag: '--bootstrap',
    env: 'KAFKA_BOOTSTRAP',
    default: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
    help: 'Kafka bootstrap servers of the stack (to find transaction coordinators)',
  },
  logLevel: { flag: '--log-level', env: 'LOG_LEVEL', default: 'info', help: 'pino level' },
  key: {
    flag: '--key',
    help: `goal: which goal of results/bench/goals.json (${GOAL_KEYS.join(', ')})`,
  },
  value: { flag: '--value', help: "goal: the goal's measured figure" },
  measuredBy: { flag: '--measured-by', help: 'goal: the command that measured it' },
} as const satisfies OptionTable;

function header(): string {
  return `Usage: tools/experiment <experiment> [options]
       tools/experiment docs [--results-dir DIR] [--docs-file FILE]
       tools/experiment goal --key KEY --value N --measured-by COMMAND [--results-dir DIR] [--docs-file FILE]

Runs a named failure experiment (or the load ladder) against the shared stack and pipeline: steady
seeded load, the fault at a set time, recovery, a reconcile of every layer. Each run writes
results/experiments/<name>/<utc>/{experiment.json,timeline.jsonl,reconcile.json}.
\`docs\` regenerates the experiment section of docs/MEASUREMENTS.md and its SVG plots from results/.
\`goal\` sets one goal's figure in results/bench/goals.json (the benchmark scripts call it); both rewrite the
goals table at the top of docs/MEASUREMENTS.md from that file.
Needs: the stack (infra/local/stack.sh up), the pipeline (tools/pipeline up), apps built.

Catalogue:
${describeCatalogue()}

Options:`;
}

export function usage(): string {
  return formatUsage(OPTIONS, header());
}

export type Command =
  | { help: true }
  | { help: false; command: 'docs'; flags: Flags }
  | {
      help: false;
      command: 'goal';
      goal: { key: GoalKey; value: number; measuredBy: string };
      flags: Flags;
    }
  | { help: false; command: 'run'; experiment: Experiment; flags: Flags };

/** The catalogue entry with the flags' overrides, validated again (a --hold 0 on a stall is refused). */
export function withOverrides(e: Experiment, f: Flags): Experiment {
  const merged: Experiment =
    e.kind === 'ladder'
      ? {
          ...e,
          rungS: f.rung ?? e.rungS,
          rungs: f.rungs ?? (f.rate !== undefined ? [f.rate] : e.rungs),
          reconcileS: f.reconcile ?? e.reconcileS,
        }
      : {
          ...e,
          rate: f.rate ?? e.rate,
          baselineS: f.baseline ?? e.baselineS,
          afterS: f.after ?? e.afterS,
          reconcileS: f.reconcile ?? e.reconcileS,
          fault: { ...e.fault, holdS: f.hold ?? e.fault.holdS },
        };
  const parsed = ExperimentSchema.safeParse(merged);
  if (!parsed.success)
    throw new ConfigError(
      `${e.name}: the overrides make it invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  if (
    merged.kind === 'fault' &&
    (merged.fault.action === 'sigstop' || merged.fault.action === 'partition') &&
    merged.fault.holdS === 0
  )
    throw new ConfigError(`--hold 0: a ${merged.fault.action} needs a hold of at least 1 s`);
  return parsed.data;
}

export function parseCommand(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): Command {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help')
    return { help: true };
  const parsed = parseOptions(OPTIONS, ConfigSchema, rest, env, { header: header() });
  if (parsed.help) return { help: true };
  const flags = parsed.config;
  if (first === 'docs') return { help: false, command: 'docs', flags };
  if (first === 'goal') {
    const { key, value, measuredBy } = flags;
    if (key === undefined) throw new ConfigError('goal: --key is required');
    if (value === undefined) throw new ConfigError('goal: --value is required');
    if (measuredBy === undefined || measuredBy.trim() === '')
      throw new ConfigError(
        'goal: --measured-by is required (the command that measured the value)',
      );
    return { help: false, command: 'goal', goal: { key, value, measuredBy }, flags };
  }
  const e = findExperiment(first);
  if (!e)
    throw new ConfigError(
      `unknown experiment '${first}': expected docs, goal or one of ${CATALOGUE.map((c) => c.name).join(', ')}`,
    );
  return { help: false, command: 'run', experiment: withOverrides(e, flags), flags };
}

/** The real process's command; the only reader of process.env in the harness. */
export function loadCommand(argv: readonly string[] = process.argv.slice(2)): Command {
  return parseCommand(argv, process.env);
}
