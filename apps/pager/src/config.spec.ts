import { ConfigError, parseConfig, usage } from './config';

describe('pager config', () => {
  it('has defaults for the local stack, and flags win over environment', () => {
    const p = parseConfig([], {});
    expect(p.help === false && p.config).toEqual({
      host: '127.0.0.1',
      port: 9403,
      pagesDir: 'results/pages',
      logLevel: 'info',
    });
    const q = parseConfig(['--port', '0'], { PAGER_PORT: '9999' });
    expect(q.help === false && q.config.port).toBe(0);
  });
  it('names the bad value and what was expected', () => {
    expect(() => parseConfig(['--port', 'x'], {})).toThrow(ConfigError);
    expect(() => parseConfig(['--port', 'x'], {})).toThrow(/"x".*0 to 65535/);
  });
  it('answers --help', () => {
    expect(parseConfig(['--help'], {})).toEqual({ help: true });
    expect(usage()).toContain('--pages-dir');
  });
});
