/**
 * What the generator shows a person: on a terminal, pretty log lines and one progress line that
 * updates in place; elsewhere (CI, pipes, files), plain lines at a slow pace; JSON when asked for.
 */

import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export const LOG_FORMATS = ['auto', 'pretty', 'plain', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** What a progress report carries (the fields of the JSON "progress" line). */
export interface ProgressFields {
  sent: number;
  /** Sends the run will make, when it is bounded (count, or rate x duration). */
  total: number | null;
  target_rate: number;
  achieved_rate: number;
  lag_ms: number;
  in_flight: number;
  faults: Record<string, number>;
}

export interface Output {
  logger: Logger;
  /** How often progress is reported, ms. */
  progressEveryMs: number;
  /**
   * Shows progress; `behind` when the run is falling behind its target rate. Absent for JSON,
   * where the run's own JSON progress line (`logReporter`) is the format.
   */
  progress?: (fields: ProgressFields, behind: boolean) => void;
  /** Ends the progress line (before the summary is printed). */
  done(): void;
}

interface Stream {
  write(s: string): unknown;
  isTTY?: boolean;
}

/** The fault counts in short form, poison kinds summed: "dup 250 · ooo 600 · late 100 · poison 120". */
export function faultSummary(faults: Record<string, number>): string {
  const short: Record<string, string> = {
    duplicate: 'dup',
    out_of_order: 'ooo',
    late: 'late',
    lateness_edge: 'edge',
    session_merge: 'merge',
  };
  const parts: string[] = [];
  let poison = 0;
  for (const [kind, n] of Object.entries(faults)) {
    if (kind.startsWith('poison')) poison += n;
    else if (kind !== 'none' && n > 0) parts.push(`${short[kind] ?? kind} ${n}`);
  }
  if (poison > 0) parts.push(`poison ${poison}`);
  return parts.length === 0 ? 'none yet' : parts.join(' · ');
}

const num = (n: number): string => n.toLocaleString('en-US');

/** One progress line, for a person. */
export function progressLine(f: ProgressFields, behind: boolean): string {
  const sent = f.total === null ? num(f.sent) : `${num(f.sent)} / ~${num(f.total)}`;
  return (
    `sent ${sent}  ${num(f.achieved_rate)}/s (target ${num(f.target_rate)})  ` +
    `lag ${num(f.lag_ms)} ms${behind ? ' BEHIND' : ''}  faults: ${faultSummary(f.faults)}`
  );
}

/** Resolves `auto`: pretty on a terminal, plain lines elsewhere. */
export function resolveFormat(format: LogFormat, stream: Stream): Exclude<LogFormat, 'auto'> {
  if (format !== 'auto') return format;
  return stream.isTTY === true ? 'pretty' : 'plain';
}

const CLEAR_LINE = '\r\x1b[2K';

/** A stream pino-pretty can write to, handing each formatted line to `write`. */
function lines(write: (s: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      write(chunk.toString());
      callback();
    },
  });
}

export function createOutput(
  format: LogFormat,
  level: string,
  stream: Stream = process.stderr,
): Output {
  const resolved = resolveFormat(format, stream);
  if (resolved === 'json') {
    // As before: one JSON line per event, and the run's JSON progress line every 5 s.
    const logger = pino({ name: 'generator', level }, pino.destination(2));
    return { logger, progressEveryMs: 5000, done: () => undefined };
  }
  if (resolved === 'plain') {
    const logger = pino(
      { name: 'generator', level },
      pretty({
        colorize: false,
        sync: true,
        destination: lines((s) => stream.write(s)),
        ignore: 'pid,hostname,name,module',
        singleLine: true,
      }),
    );
    return {
      logger,
      progressEveryMs: 15_000,
      progress: (f, behind) => {
        if (logger.isLevelEnabled(behind ? 'warn' : 'info'))
          stream.write(`progress: ${progressLine(f, behind)}\n`);
      },
      done: () => undefined,
    };
  }
  // A terminal: log lines clear the progress line, which is drawn again after them.
  let line = '';
  const logger = pino(
    { name: 'generator', level },
    pretty({
      colorize: true,
      sync: true,
      ignore: 'pid,hostname,name,module',
      singleLine: true,
      destination: lines((s) => stream.write(`${CLEAR_LINE}${s}${line}`)),
    }),
  );
  return {
    logger,
    progressEveryMs: 500,
    progress: (f, behind) => {
      if (!logger.isLevelEnabled(behind ? 'warn' : 'info')) return;
      line = progressLine(f, behind);
      stream.write(`${CLEAR_LINE}${line}`);
    },
    done: () => {
      if (line !== '') stream.write('\n');
      line = '';
    },
  };
}
