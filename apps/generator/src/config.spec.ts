import * as path from 'path';
import { ConfigError, parseConfig, usage } from './config';

const now = () => 1_764_000_000_000;
const parse = (argv: string[], env: Record<string, string> = {}) => {
  const r = parseConfig(argv, env, now);
  if (r.help) throw new Error('unexpected help');
  return r.config;
};

describe('generator config', () => {
  it('has working defaults: a live run of clickstream.raw at 1000/s, default ratios, run id from seed and start', () => {
    const c = parse([]);
    expect(c.dryRun).toBe(false);
    expect(c.run).toMatchObject({
      seed: 1,
      runId: 'gen-1-1764000000000',
      startTime: 1_764_000_000_000,
      rate: 1000,
      rampTo: null,
      durationMs: null,
      count: null,
      topic: 'clickstream.raw',
      latenessMs: 5000,
      sessions: 5000,
      maxDuplicateDelayMs: 300_000,
      dedupTtlMs: 3_600_000,
      bootstrap: '127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092',
      resultsDir: path.resolve('results'),
    });
    expect(c.run.ratios.duplicate).toBe(0.02);
  });

  it('reads flags (with or without =), env, and lets flags win', () => {
    const c = parse(
      ['--seed', '7', '--rate=2500', '--duration', '20s', '--dry-run', '--dup-ratio', '0.1'],
      { GENERATOR_SEED: '9', GENERATOR_TOPIC: 'raw-x', GENERATOR_RAMP_TO: '5000' },
    );
    expect(c.dryRun).toBe(true);
    expect(c.run).toMatchObject({
      seed: 7,
      rate: 2500,
      rampTo: 5000,
      durationMs: 20_000,
      topic: 'raw-x',
      bootstrap: null,
    });
    expect(c.run.ratios.duplicate).toBe(0.1);
    expect(parse(['--start-time', '2026-01-01T00:00:00Z', '--count', '5']).run.startTime).toBe(
      Date.parse('2026-01-01T00:00:00Z'),
    );
    expect(parse([], { GENERATOR_DRY_RUN: 'true', GENERATOR_COUNT: '10' }).dryRun).toBe(true);
  });

  it.each([
    [['--rate', 'fast'], /--rate: got "fast"; expected a positive number/],
    [['--rate', '-5'], /--rate: got "-5"; expected a positive number/],
    [['--count', '1.5'], /--count: got "1.5"; expected an integer from 1/],
    [['--duration', '20'], /--duration: got "20"; expected a duration like 1500ms, 20s, 5m or 1h/],
    [['--dup-ratio', '2'], /--dup-ratio: got "2"; expected a ratio from 0 to 1/],
    [['--run-id', '../x'], /--run-id: got "..\/x"; expected a run id/],
    [
      ['--bootstrap', 'nohost'],
      /--bootstrap: got "nohost"; expected a comma-separated list of host:port/,
    ],
    [
      ['--start-time', 'yesterday'],
      /--start-time: got "yesterday"; expected epoch milliseconds or an ISO 8601/,
    ],
    [['--colour', 'red'], /unknown argument "--colour"/],
    [['--seed'], /--seed: missing value/],
    [['--ramp-to', '5000'], /--ramp-to: got "5000"; expected a ramp over a bounded run/],
    [['--dry-run'], /--dry-run: got "true"; expected a bounded dry run/],
    [
      ['--max-dup-delay', '2h'],
      /--max-dup-delay: got "2h"; expected a delay within the dedup TTL "1h" \(--dedup-ttl \(default\)\)/,
    ],
    [
      ['--max-dup-delay', '10m', '--dedup-ttl', '5m'],
      /--max-dup-delay: got "10m"; expected a delay within the dedup TTL "5m"/,
    ],
    [
      ['--late-ratio', '0.6', '--out-of-order-ratio', '0.6'],
      /fault ratios .*: got 1\.2[0-9]*; expected ratios that sum to at most 1/,
    ],
    [
      [
        '--dup-ratio',
        '0.5',
        '--poison-random-ratio',
        '0.4',
        '--out-of-order-ratio',
        '0',
        '--late-ratio',
        '0',
      ],
      /--dup-ratio: got "0.5"; expected a duplicate ratio the valid sends can feed/,
    ],
  ])('fails fast on %j naming the flag, the value and what was expected', (argv, message) => {
    expect(() => parseConfig(argv, {}, now)).toThrow(ConfigError);
    expect(() => parseConfig(argv, {}, now)).toThrow(message);
  });

  it('names the environment variable when the bad value came from it', () => {
    expect(() => parseConfig([], { GENERATOR_LATENESS_MS: 'soon' }, now)).toThrow(
      /GENERATOR_LATENESS_MS: got "soon"/,
    );
  });

  it('prints help listing every flag', () => {
    expect(parseConfig(['--help'], {}, now)).toEqual({ help: true });
    for (const flag of [
      '--seed',
      '--rate',
      '--ramp-to',
      '--duration',
      '--count',
      '--run-id',
      '--dry-run',
      '--bootstrap',
      '--topic',
      '--lateness-ms',
      '--dup-ratio',
    ]) {
      expect(usage()).toContain(flag);
    }
  });
});
