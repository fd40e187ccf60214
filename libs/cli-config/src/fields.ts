/** The option values every app shares (Kafka bootstrap lists, topic names, integer and number ranges, log levels, directories), each with one wording of what was expected. */

import { statSync } from 'node:fs';
import { z } from 'zod';

/** pino's levels; 'silent' turns logging off. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const logLevel = z.enum(LOG_LEVELS, `one of ${LOG_LEVELS.join(', ')}`);

/** A number from text; not-a-number and infinities fail with `expected`. */
function finite(expected: string) {
  return z.coerce.number({ error: expected }).refine(Number.isFinite, expected);
}

/** An integer from min to max (inclusive), given as text; every failure reads "an integer from <min> to <max>". */
export function intIn(min: number, max: number) {
  const expected = `an integer from ${min} to ${max}`;
  return finite(expected).pipe(z.number().int(expected).min(min, expected).max(max, expected));
}

/** A number from non-blank text (blank text would coerce to 0 and pass a range that holds 0). */
function finiteText(expected: string) {
  return z
    .string({ error: expected })
    .refine((t) => t.trim() !== '', expected)
    .transform(Number)
    .refine(Number.isFinite, expected);
}

/** Any finite number, given as text; every failure reads "a finite number". */
export const finiteNumber = finiteText('a finite number');

/** A number (fractions allowed) from min to max (inclusive), given as text; every failure reads "a number from <min> to <max>". */
export function numberIn(min: number, max: number) {
  const expected = `a number from ${min} to ${max}`;
  return finiteText(expected).pipe(z.number().min(min, expected).max(max, expected));
}

const HOST_PORT = /^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/;

/** Kafka bootstrap servers: host:port[,host:port...]. */
export const hostPortList = z
  .string()
  .refine(
    (s) => s.split(',').every((p) => HOST_PORT.test(p.trim())),
    'a comma-separated list of host:port',
  );

/** A Kafka topic name as the broker accepts it. */
export const topicName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name ([A-Za-z0-9._-], 1-249 chars)');

/** A ClickHouse database or table name the warehouse accepts unquoted. */
export const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a plain identifier');

/** A path that names an existing directory when the config is parsed (so a wrong path fails at start). */
export const existingDirectory = z
  .string()
  .min(1, 'an existing directory')
  .refine(
    (dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true,
    'an existing directory',
  );
