/** The first step of every app's main: its configuration, or the exit code when there is nothing to run. */

import { ConfigError } from './parse';

/** What an app's loadConfig returns: the usage was asked for, or the configuration. */
export type LoadedConfig<C> = { help: true } | { help: false; config: C };

export interface StartOptions {
  /** Appended to a configuration error's message, e.g. " (see --help)". */
  hint?: string;
  /** The exit codes of --help and of a configuration error (default 0 and 2). */
  codes?: { help: number; config: number };
}

/**
 * Loads the configuration. With --help it prints `usage()` on stdout, and on a ConfigError it prints
 * "<app>: <message><hint>" on stderr; either way it answers the exit code instead of a
 * configuration. Any other error propagates.
 */
export function configOrExit<C>(
  app: string,
  load: () => LoadedConfig<C>,
  usage: () => string,
  o: StartOptions = {},
): { config: C } | { exit: number } {
  const codes = o.codes ?? { help: 0, config: 2 };
  let loaded: LoadedConfig<C>;
  try {
    loaded = load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${app}: ${error.message}${o.hint ?? ''}\n`);
    return { exit: codes.config };
  }
  if (loaded.help) {
    process.stdout.write(`${usage()}\n`);
    return { exit: codes.help };
  }
  return { config: loaded.config };
}
