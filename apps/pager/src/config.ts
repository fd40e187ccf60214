/** Pager configuration: parsed once from flags and environment, failing fast on a bad value. */

import { z } from 'zod';
import {
  ConfigError,
  parseOptions,
  usage as formatUsage,
  type OptionTable,
} from '@clickstream/cli-config';

export { ConfigError };

const ConfigSchema = z.object({
  host: z.string().min(1, 'a listen address'),
  port: z.coerce
    .number({ error: 'an integer from 0 to 65535' })
    .int('an integer from 0 to 65535')
    .min(0, 'an integer from 0 to 65535')
    .max(65_535, 'an integer from 0 to 65535'),
  pagesDir: z.string().min(1, 'a directory'),
  logLevel: z.enum(
    ['trace', 'debug', 'info', 'warn', 'error', 'fatal'],
    'one of trace, debug, info, warn, error, fatal',
  ),
});
export type PagerConfig = z.infer<typeof ConfigSchema>;

const OPTIONS = {
  host: { flag: '--host', env: 'PAGER_HOST', default: '127.0.0.1', help: 'listen address' },
  port: {
    flag: '--port',
    env: 'PAGER_PORT',
    default: '9403',
    help: 'port of POST /alerts (Alertmanager webhook), /metrics and /healthz (0 = any free port)',
  },
  pagesDir: {
    flag: '--pages-dir',
    env: 'PAGER_PAGES_DIR',
    default: 'results/pages',
    help: 'directory of pages.jsonl: one JSON line per notification, firing and resolved',
  },
  logLevel: { flag: '--log-level', env: 'LOG_LEVEL', default: 'info', help: 'pino level' },
} as const satisfies OptionTable;

const HEADER = `Usage: node apps/pager/dist/main.js [options]

Alertmanager's webhook receiver: appends every notification (firing and resolved) as one JSON
line to <pages-dir>/pages.jsonl and logs it. Every option can also be set by its environment
variable; flags win.
`;

export function usage(): string {
  return formatUsage(OPTIONS, HEADER);
}

export type ParsedArgs = { help: true } | { help: false; config: PagerConfig };

export function parseConfig(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): ParsedArgs {
  const parsed = parseOptions(OPTIONS, ConfigSchema, argv, env, { header: HEADER });
  return parsed.help ? { help: true } : { help: false, config: parsed.config };
}

/** The real process's configuration; the only reader of process.env in the pager. */
export function loadConfig(argv: readonly string[] = process.argv.slice(2)): ParsedArgs {
  return parseConfig(argv, process.env);
}
