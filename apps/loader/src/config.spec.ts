import { ConfigError, parseConfig as parse, usage } from './config';

function parseConfig(argv: string[], env: Record<string, string>) {
  const parsed = parse(argv, env);
  if (parsed.help) throw new Error('unexpected --help');
  return parsed.config;
}

describe('parseConfig', () => {
  it('has defaults for the local stack', () => {
    const c = parseConfig([], {});
    expect(c.clickhouseUrl).toBe('http://127.0.0.1:18123');
    expect(c.database).toBe('clickstream');
    expect([...c.topics]).toEqual([
      ['valid', 'events.valid'],
      ['clean', 'events.clean'],
      ['dlq', 'events.dlq'],
      ['late', 'events.late'],
      ['windows', 'agg.windows'],
      ['sessions', 'agg.sessions'],
    ]);
    expect(c).toMatchObject({ flushMs: 250, flushRows: 5000, metricsPort: 9402, migrate: false });
    expect([...c.slowRoles]).toEqual(['dlq', 'late', 'sessions']);
    expect(c.slowFlushMs).toBe(5000);
  });

  it('takes the slow lane as a list of roles, or none for one lane', () => {
    expect([...parseConfig(['--slow-roles', ' windows , dlq '], {}).slowRoles]).toEqual([
      'windows',
      'dlq',
    ]);
    expect(parseConfig([], { LOADER_SLOW_ROLES: 'none' }).slowRoles.size).toBe(0);
    expect(parseConfig(['--slow-roles='], {}).slowRoles.size).toBe(0);
  });

  it('lets flags (both spellings) override the environment', () => {
    const c = parseConfig(['--database', 'db_a', '--topics=valid=v1,dlq=d1', '--migrate'], {
      LOADER_DATABASE: 'db_env',
      LOADER_FLUSH_MS: '500',
    });
    expect(c.database).toBe('db_a');
    expect(c.flushMs).toBe(500);
    expect(c.migrate).toBe(true);
    expect([...c.topics]).toEqual([
      ['valid', 'v1'],
      ['dlq', 'd1'],
    ]);
  });

  it.each<[string[], RegExp, Record<string, string>?]>([
    [['--flush-ms', 'soon'], /--flush-ms: got "soon"; expected an integer from 10 to 60000/],
    [['--database', 'a-b'], /--database: got "a-b"; expected a plain identifier/],
    [['--topics', 'valid=a,valid=b'], /--topics: got .*each once/],
    [
      ['--topics', 'aggs=agg'],
      /--topics: got .*roles from valid\|clean\|dlq\|late\|windows\|sessions/,
    ],
    [['--clickhouse-url', 'not a url'], /--clickhouse-url: got "not a url"/],
    [
      ['--bootstrap', 'nohost'],
      /--bootstrap: got "nohost"; expected a comma-separated list of host:port/,
    ],
    [[], /LOADER_FLUSH_MS: got ""/, { LOADER_FLUSH_MS: '' }],
    [['--nope', '1'], /unknown argument "--nope"/],
    [
      ['--slow-roles', 'dlq,aggs'],
      /--slow-roles: got "dlq,aggs"; expected roles from .*bad "aggs"/,
    ],
    [['--slow-flush-ms', '5'], /--slow-flush-ms: got "5"; expected an integer from 10 to 600000/],
    [['--group'], /--group: missing value/],
    [
      ['--backfill-dir', '/nonexistent/backfill'],
      /--backfill-dir: got "\/nonexistent\/backfill"; expected an existing directory/,
    ],
    [
      [],
      /LOADER_DDL_DIR: got "\/nonexistent"; expected an existing directory/,
      { LOADER_DDL_DIR: '/nonexistent' },
    ],
  ])('rejects %j naming the flag or variable and the value', (argv, message, env = {}) => {
    expect(() => parseConfig(argv, env)).toThrow(ConfigError);
    expect(() => parseConfig(argv, env)).toThrow(message);
  });

  it('answers --help with a usage text generated from its options', () => {
    expect(parse(['--help'], {})).toEqual({ help: true });
    const text = usage();
    for (const flag of [
      '--bootstrap',
      '--topics',
      '--flush-ms',
      '--migrate',
      '--fault-after-batches',
    ])
      expect(text).toContain(flag);
    expect(text).toContain('[LOADER_FLUSH_MS]');
  });
});
