import { ConfigError, parseConfig } from './config';

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

  it.each([
    [['--flush-ms', 'soon'], /invalid flushMs="soon"/],
    [['--database', 'a-b'], /invalid database="a-b": expected a plain identifier/],
    [['--topics', 'valid=a,valid=b'], /invalid topics=.*each once/],
    [
      ['--topics', 'aggs=agg'],
      /invalid topics=.*roles from valid\|clean\|dlq\|late\|windows\|sessions/,
    ],
    [['--clickhouse-url', 'not a url'], /invalid clickhouseUrl/],
    [['--nope', '1'], /unknown flag "--nope"/],
    [['--group'], /flag --group needs a value/],
  ])('rejects %j naming the key and value', (argv, message) => {
    expect(() => parseConfig(argv, {})).toThrow(ConfigError);
    expect(() => parseConfig(argv, {})).toThrow(message);
  });
});
