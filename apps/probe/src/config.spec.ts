import { ConfigError, parseConfig } from './config';

describe('probe config', () => {
  it('has defaults for the local stack', () => {
    const c = parseConfig([], {});
    expect(c.intervalMs).toBe(5000);
    expect(c.metricsPort).toBe(9401);
    expect(c.clickhouseUrl).toBe('http://127.0.0.1:18123');
  });
  it('takes flags over environment', () => {
    expect(parseConfig(['--interval-ms', '250'], { PROBE_INTERVAL_MS: '900' }).intervalMs).toBe(250);
  });
  it('names the key, the value and what was expected', () => {
    expect(() => parseConfig(['--interval-ms', 'soon'], {})).toThrow(/intervalMs="soon"/);
    expect(() => parseConfig([], { PROBE_METRICS_PORT: '70000' })).toThrow(/metricsPort="70000"/);
  });
  it('rejects unknown flags and missing values', () => {
    expect(() => parseConfig(['--intervl', '5'], {})).toThrow(ConfigError);
    expect(() => parseConfig(['--bootstrap'], {})).toThrow(/needs a value/);
  });
});
