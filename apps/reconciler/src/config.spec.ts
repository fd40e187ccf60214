import { ConfigError, parseConfig as parse, resolveKafkaReader, usage } from './config';

function parseConfig(argv: string[], env: Record<string, string>) {
  const parsed = parse(argv, env);
  if (parsed.help) throw new Error('unexpected --help');
  return parsed.config;
}

describe('parseConfig', () => {
  it('defaults everything but the run directory', () => {
    const c = parseConfig(['--run-dir', 'results/runs/r1'], {});
    expect(c.out).toBe('results/runs/r1/reconcile.json');
    expect(c.topics).toEqual({
      raw: 'clickstream.raw',
      valid: 'events.valid',
      dlq: 'events.dlq',
      clean: 'events.clean',
      late: 'events.late',
      windows: 'agg.windows',
      sessions: 'agg.sessions',
    });
    expect(c.layers).toHaveLength(8);
    expect(c.timedLayers).toEqual([
      'events.late',
      'agg.windows',
      'agg.sessions',
      'clickhouse.events_late',
      'clickhouse.agg_windows',
      'clickhouse.agg_sessions',
    ]);
    expect(c.ingestBoundMs).toBe(60_000);
    expect(c.clickhouseDatabase).toBe('clickstream');
    expect([c.kafkaFrom, c.kafkaMarginS]).toEqual(['run-start', 60]);
  });

  it('takes overrides, in both flag forms', () => {
    const c = parseConfig(
      [
        '--run-dir=r',
        '--layers',
        'clickstream.raw,events.dlq',
        '--topic-raw',
        'raw-x1',
        '--examples=3',
        '--kafka-from',
        'beginning',
        '--kafka-margin-s=0',
      ],
      {},
    );
    expect(c.layers).toEqual(['clickstream.raw', 'events.dlq']);
    const timed = parseConfig(['--run-dir=r', '--layers', 'events.clean,agg.windows'], {});
    expect([timed.layers, timed.timedLayers]).toEqual([['events.clean'], ['agg.windows']]);
    expect(c.topics.raw).toBe('raw-x1');
    expect(c.examples).toBe(3);
    expect([c.kafkaFrom, c.kafkaMarginS]).toEqual(['beginning', 0]);
  });

  it.each([
    [['--run-dir', 'r', '--nope', '1'], /unknown argument "--nope"/],
    [['--layers', 'clickstream.raw'], /--run-dir is required/],
    [['--run-dir'], /--run-dir: missing value/],
    [
      ['--run-dir', 'r', '--layers', 'clickstream.raw,agg.windowz'],
      /--layers: got .*unknown layer "agg.windowz"/,
    ],
    [['--run-dir', 'r', '--clickhouse-url', 'not a url'], /--clickhouse-url: got "not a url"/],
    [
      ['--run-dir', 'r', '--examples', '99'],
      /--examples: got "99"; expected an integer from 1 to 20/,
    ],
    [['--run-dir', 'r', '--topic-dlq', 'bad topic'], /--topic-dlq: got "bad topic"/],
    [
      ['--run-dir', 'r', '--kafka-from', 'start'],
      /--kafka-from: got "start"; expected one of run-start, beginning/,
    ],
    [
      ['--run-dir', 'r', '--kafka-margin-s', '-1'],
      /--kafka-margin-s: got "-1"; expected an integer from 0 to 86400/,
    ],
    [
      ['--run-dir', 'r', '--clickhouse-database', 'x;drop'],
      /--clickhouse-database: got "x;drop"; expected a plain identifier/,
    ],
  ])('fails fast naming the flag: %j', (argv, message) => {
    expect(() => parseConfig(argv, {})).toThrow(ConfigError);
    expect(() => parseConfig(argv, {})).toThrow(message);
  });
  it('answers --help with a usage text generated from its options', () => {
    expect(parse(['--help'], {})).toEqual({ help: true });
    for (const flag of ['--run-dir', '--layers', '--examples', '--topic-clean'])
      expect(usage()).toContain(flag);
  });
});

describe('--kafka-reader', () => {
  it('node reads with readTopic; auto takes the compiled reader only when it is built', () => {
    expect(resolveKafkaReader('node')).toBeNull();
    expect(resolveKafkaReader('auto', '/nonexistent/topic-reader')).toBeNull();
    expect(resolveKafkaReader('auto', '/bin/sh')).toBe('/bin/sh');
    expect(resolveKafkaReader('/bin/sh')).toBe('/bin/sh');
  });

  it('fails fast on a path that is not an executable file', () => {
    expect(() =>
      parseConfig(['--run-dir', 'd', '--kafka-reader', '/nonexistent/topic-reader'], {}),
    ).toThrow(/--kafka-reader: got "\/nonexistent\/topic-reader"; expected auto, node or the path/);
    expect(() => resolveKafkaReader('/tmp')).toThrow(ConfigError);
  });
});
