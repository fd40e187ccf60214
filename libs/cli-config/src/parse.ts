/** Parses an app's options from argv (util.parseArgs), then environment, then defaults, and validates them with one zod schema. */

import { parseArgs } from 'util';
import type { z } from 'zod';

/** One option: its flag, its environment variable, its default (as text, parsed like user input) and its meaning. */
export interface OptionSpec {
  flag: string;
  env?: string;
  default?: string;
  help: string;
  /** A flag that takes no value (`--dry-run` means "true"); `--dry-run=<v>` and its environment variable pass <v> to the schema. */
  boolean?: true;
}

export type OptionTable = Record<string, OptionSpec>;

/** Where a raw value came from, for error messages that point at what the user has to change. */
export type Origin = 'flag' | 'env' | 'default';

/** A bad flag or value; `message` names the flag (or variable or key), the value and what was expected. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface InvalidValue {
  key: string;
  spec: OptionSpec;
  origin: Origin;
  /** The flag, the environment variable, or "<flag> (default)". */
  source: string;
  /** The raw text (undefined when the option was not given and has no default). */
  value: string | undefined;
  /** The zod issue's message: what was expected. */
  expected: string;
}

/** How each kind of failure is worded; the defaults read `--flag: got "v"; expected ...`. */
export interface Messages {
  /** `arg` is the whole argument as typed (`--nope=1`), `name` its option part (`--nope`). */
  unknown(arg: string, name: string, table: OptionTable, helpFlag: boolean): string;
  missing(spec: OptionSpec): string;
  invalid(bad: InvalidValue): string;
}

export const DEFAULT_MESSAGES: Messages = {
  unknown: (arg, _name, table, helpFlag) =>
    `unknown argument ${JSON.stringify(arg)}; expected one of ${[
      ...Object.values(table).map((s) => s.flag),
      ...(helpFlag ? ['--help'] : []),
    ].join(', ')}`,
  missing: (spec) => `${spec.flag}: missing value; expected ${spec.help}`,
  invalid: (bad) =>
    `${bad.source}: got ${JSON.stringify(bad.value ?? null)}; expected ${bad.expected}`,
};

/** The wording of the collector and the probe (`unknown flag "--x" (see --help)`), which their users' scripts match. */
export const SEE_HELP_MESSAGES: Messages = {
  unknown: (arg) => `unknown flag ${JSON.stringify(arg)} (see --help)`,
  missing: (spec) => `flag ${spec.flag} needs a value (see --help)`,
  invalid: (bad) => `invalid ${bad.key}=${JSON.stringify(bad.value)}: ${bad.expected}`,
};

export interface ParseSettings {
  /** Recognise `--help`/`-h` and answer `{ help: true, usage }` (default true). */
  helpFlag?: boolean;
  /** First lines of the usage text. */
  header?: string;
  /** An empty environment variable counts as unset (default true); false keeps `''` as a value. */
  emptyEnvIsUnset?: boolean;
  messages?: Partial<Messages>;
}

export type Parsed<T, K extends string> =
  | { help: true; usage: string }
  | {
      help: false;
      config: T;
      /** The raw text of every option, after flags, environment and defaults. */
      raw: Record<K, string | undefined>;
      /** Where each raw value came from, worded as in error messages. */
      source: Record<K, string>;
    };

/** `--flag` -> its option key, plus the help pseudo-option. */
function argsOptions(table: OptionTable, helpFlag: boolean) {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const spec of Object.values(table)) {
    options[spec.flag.replace(/^--/, '')] = { type: spec.boolean ? 'boolean' : 'string' };
  }
  if (helpFlag) options['help'] = { type: 'boolean', short: 'h' };
  return options;
}

/**
 * Flags from argv. parseArgs tokenises (`--k v`, `--k=v`, `-h`); its strict mode is not used
 * because it rejects a separate value that starts with a dash (`--seed -3`), which the apps
 * accept, so strictness (unknown flags, missing values, positionals) is checked here from the tokens.
 */
function readFlags(
  argv: readonly string[],
  table: OptionTable,
  helpFlag: boolean,
  messages: Messages,
): { help: boolean; values: Map<string, string> } {
  const byName = new Map(Object.entries(table).map(([key, s]) => [s.flag.replace(/^--/, ''), key]));
  const { tokens } = parseArgs({
    args: [...argv],
    options: argsOptions(table, helpFlag),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values = new Map<string, string>();
  let help = false;
  for (const token of tokens) {
    const arg = argv[token.index] ?? '';
    // No app takes positionals, so a bare `--` is as unexpected as one.
    if (token.kind !== 'option') {
      throw new ConfigError(messages.unknown(arg, arg, table, helpFlag));
    }
    if (helpFlag && token.name === 'help' && token.value === undefined) {
      help = true;
      continue;
    }
    const key = byName.get(token.name);
    const spec = key === undefined ? undefined : table[key];
    if (key === undefined || spec === undefined || !token.rawName.startsWith('--')) {
      throw new ConfigError(messages.unknown(arg, token.rawName, table, helpFlag));
    }
    const value = spec.boolean ? (token.value ?? 'true') : token.value;
    if (value === undefined) throw new ConfigError(messages.missing(spec));
    values.set(key, value);
  }
  return { help, values };
}

/** Flags win over environment, environment over defaults; the first invalid value throws a ConfigError. */
export function parseOptions<O extends OptionTable, S extends z.ZodType>(
  table: O,
  schema: S,
  argv: readonly string[],
  env: Record<string, string | undefined>,
  settings: ParseSettings = {},
): Parsed<z.output<S>, Extract<keyof O, string>> {
  type K = Extract<keyof O, string>;
  const helpFlag = settings.helpFlag ?? true;
  const messages: Messages = { ...DEFAULT_MESSAGES, ...settings.messages };
  const { help, values } = readFlags(argv, table, helpFlag, messages);
  if (help) return { help: true, usage: usage(table, settings.header ?? '') };
  const raw = {} as Record<K, string | undefined>;
  const source = {} as Record<K, string>;
  const origin = {} as Record<K, Origin>;
  for (const key of Object.keys(table) as K[]) {
    const spec = table[key] as OptionSpec;
    const fromFlag = values.get(key);
    const fromEnv = spec.env === undefined ? undefined : env[spec.env];
    const envSet = fromEnv !== undefined && !(fromEnv === '' && settings.emptyEnvIsUnset !== false);
    if (fromFlag !== undefined)
      [raw[key], source[key], origin[key]] = [fromFlag, spec.flag, 'flag'];
    else if (envSet) [raw[key], source[key], origin[key]] = [fromEnv, spec.env as string, 'env'];
    else [raw[key], source[key], origin[key]] = [spec.default, `${spec.flag} (default)`, 'default'];
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '?') as K;
    const spec: OptionSpec = table[key] ?? { flag: key, help: key };
    throw new ConfigError(
      messages.invalid({
        key,
        spec,
        origin: origin[key] ?? 'default',
        source: source[key] ?? key,
        value: raw[key],
        expected: issue?.message ?? 'a valid value',
      }),
    );
  }
  return { help: false, config: parsed.data, raw, source };
}

/** The help text: the header, then each flag with its variable, meaning and default, then --help. */
export function usage(table: OptionTable, header: string): string {
  const lines = [header];
  for (const spec of Object.values(table)) {
    const def = spec.default === undefined ? '' : ` (default ${spec.default})`;
    const env = spec.env === undefined ? '' : `  [${spec.env}]`;
    lines.push(`  ${spec.flag}${spec.boolean ? '' : ' <value>'}${env}`, `      ${spec.help}${def}`);
  }
  lines.push('  --help', '      print this text and exit');
  return lines.join('\n');
}
