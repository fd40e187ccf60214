import { ConfigError, parseConfig } from './config';

describe('parseConfig', () => {
  it('defaults everything but the run directory', () => {
    const c = parseConfig(['--run-dir', 'results/runs/r1'], {});
    expect(c.out).toBe('results/runs/r1/reconcile.json');
    expect(c.topics).toEqual({ raw: 'clickstream.raw', valid: 'events.valid', dlq: 'events.dlq', clean: 'events.clean' });
    expect(c.layers).toHaveLength(8);
    expect(c.clickhouseDatabase).toBe('clickstream');
  });

  it('takes overrides, in both flag forms', () => {
    const c = parseConfig(['--run-dir=r', '--layers', 'clickstream.raw,events.dlq', '--topic-raw', 'raw-x1', '--examples=3'], {});
    expect(c.layers).toEqual(['clickstream.raw', 'events.dlq']);
    expect(c.topics.raw).toBe('raw-x1');
    expect(c.examples).toBe(3);
  });

  it.each([
    [['--run-dir', 'r', '--nope', '1'], /unknown flag "--nope"/],
    [['--layers', 'clickstream.raw'], /--run-dir is required/],
    [['--run-dir'], /--run-dir needs a value/],
    [['--run-dir', 'r', '--layers', 'clickstream.raw,agg.windowz'], /--layers.*unknown layer "agg.windowz"/],
    [['--run-dir', 'r', '--clickhouse-url', 'not a url'], /invalid --clickhouse-url="not a url"/],
    [['--run-dir', 'r', '--examples', '99'], /invalid --examples="99"/],
    [['--run-dir', 'r', '--topic-dlq', 'bad topic'], /invalid --topic-dlq="bad topic"/],
    [['--run-dir', 'r', '--clickhouse-database', 'x;drop'], /invalid --clickhouse-database/],
  ])('fails fast naming the flag: %j', (argv, message) => {
    expect(() => parseConfig(argv, {})).toThrow(ConfigError);
    expect(() => parseConfig(argv, {})).toThrow(message);
  });
});
