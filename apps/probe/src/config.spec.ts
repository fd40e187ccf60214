import { ConfigError, parseConfig, usage, type ProbeConfig } from './config';

function config(argv: string[], env: Record<string, string> = {}): ProbeConfig {
  const parsed = parseConfig(argv, env);
  if (parsed.help) throw new Error('unexpected --help');
  return parsed.config;
}

describe('probe config', () => {
  it('has defaults for the local stack', () => {
    const c = config([]);
    expect(c.intervalMs).toBe(5000);
    expect(c.intervalJitter).toBe(0.5);
    expect(c.pollMs).toBe(250);
    expect(c.windowsPollMs).toBe(1000);
    expect(c.sloThresholdMs).toBe(10000);
    expect(c.metricsPort).toBe(9401);
    expect(c.clickhouseUrl).toBe('http://127.0.0.1:18123');
    expect(c.topic).toBe('clickstream.raw');
    expect(c.layers).toEqual(['valid', 'clean', 'windows']);
    expect(c.runId).toBe('');
  });
  it('takes flags over environment', () => {
    expect(config(['--interval-ms', '250'], { PROBE_INTERVAL_MS: '900' }).intervalMs).toBe(250);
    expect(config([], { PROBE_INTERVAL_MS: '900' }).intervalMs).toBe(900);
  });
  it('parses the layer list and drops repeats', () => {
    expect(config(['--layers', 'clean,clean']).layers).toEqual(['clean']);
    expect(config(['--layers', 'clean,windows']).layers).toEqual(['clean', 'windows']);
    expect(() => config(['--layers', 'clean,sessions'])).toThrow(/layers="clean,sessions"/);
  });
  it('names the key, the value and what was expected', () => {
    expect(() => config(['--interval-ms', 'soon'])).toThrow(/intervalMs="soon"/);
    expect(() => config(['--interval-jitter', '1'])).toThrow(/intervalJitter="1".*0 to 0.9/);
    expect(() => config([], { PROBE_METRICS_PORT: '70000' })).toThrow(/metricsPort="70000"/);
    expect(() => config(['--run-id', 'a b'])).toThrow(/runId="a b"/);
  });
  it('rejects unknown flags and missing values', () => {
    expect(() => config(['--intervl', '5'])).toThrow(ConfigError);
    expect(() => config(['--bootstrap'])).toThrow(/needs a value/);
  });
  it('answers --help with a usage text that lists every flag', () => {
    expect(parseConfig(['--help'], {})).toEqual({ help: true });
    expect(usage()).toMatch(/--interval-ms <value>\s+\[PROBE_INTERVAL_MS\]/);
    expect(usage()).toContain('--slo-threshold-ms');
  });
});
