import { ConfigError, parseConfig, usage } from './config';

describe('dashboard config', () => {
  it('defaults to the local stack and the read-only user', () => {
    const p = parseConfig([], {});
    expect(p).toEqual({
      help: false,
      config: expect.objectContaining({
        port: 9410,
        clickhouseUser: 'dashboard',
        database: 'clickstream',
        prometheusUrl: 'http://127.0.0.1:9090',
        revenueSource: 'windows',
      }) as unknown,
    });
  });

  it('answers --help and lists every flag', () => {
    expect(parseConfig(['--help'], {})).toEqual({ help: true });
    for (const flag of ['--port', '--clickhouse-user', '--revenue-source', '--prometheus-url'])
      expect(usage()).toContain(flag);
  });

  it('names the flag, the value and what was expected', () => {
    expect(() => parseConfig(['--revenue-source', 'rollup'], {})).toThrow(ConfigError);
    expect(() => parseConfig(['--revenue-source', 'rollup'], {})).toThrow(
      /--revenue-source.*rollup.*clean or windows/,
    );
    expect(() => parseConfig([], { DASHBOARD_PORT: '70000' })).toThrow(
      /DASHBOARD_PORT.*70000.*0 to 65535/,
    );
    expect(() => parseConfig(['--nope'], {})).toThrow(/--nope/);
  });
});
