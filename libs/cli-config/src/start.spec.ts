import { ConfigError } from './parse';
import { configOrExit, type LoadedConfig } from './start';

describe('configOrExit', () => {
  let out: string[];
  let err: string[];
  beforeEach(() => {
    out = [];
    err = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((s) => out.push(String(s)) > 0);
    jest.spyOn(process.stderr, 'write').mockImplementation((s) => err.push(String(s)) > 0);
  });
  afterEach(() => jest.restoreAllMocks());

  const usage = (): string => 'Usage: app [options]';
  const loads =
    <C>(r: LoadedConfig<C> | Error) =>
    (): LoadedConfig<C> => {
      if (r instanceof Error) throw r;
      return r;
    };

  it('answers the configuration, printing nothing', () => {
    expect(configOrExit('app', loads({ help: false, config: { port: 1 } }), usage)).toEqual({
      config: { port: 1 },
    });
    expect([out, err]).toEqual([[], []]);
  });

  it('prints the usage for --help and answers its exit code', () => {
    expect(configOrExit('app', loads({ help: true }), usage)).toEqual({ exit: 0 });
    expect(out).toEqual(['Usage: app [options]\n']);
    const codes = { help: 10, config: 64 };
    expect(configOrExit('app', loads({ help: true }), usage, { codes })).toEqual({ exit: 10 });
  });

  it('prints a configuration error after the app name, with the hint, and answers its exit code', () => {
    const bad = loads<number>(new ConfigError('--port: got "x"; expected an integer'));
    expect(configOrExit('app', bad, usage)).toEqual({ exit: 2 });
    expect(configOrExit('app', bad, usage, { hint: ' (see --help)' })).toEqual({ exit: 2 });
    expect(configOrExit('app', bad, usage, { codes: { help: 0, config: 64 } })).toEqual({
      exit: 64,
    });
    expect(err).toEqual([
      'app: --port: got "x"; expected an integer\n',
      'app: --port: got "x"; expected an integer (see --help)\n',
      'app: --port: got "x"; expected an integer\n',
    ]);
    expect(out).toEqual([]);
  });

  it('lets any other error through', () => {
    expect(() => configOrExit('app', loads<number>(new Error('disk on fire')), usage)).toThrow(
      'disk on fire',
    );
    expect(err).toEqual([]);
  });
});
