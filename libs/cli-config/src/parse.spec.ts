import { z } from 'zod';
import { ConfigError, parseOptions, usage, type OptionTable } from './index';

const OPTIONS = {
  port: { flag: '--port', env: 'APP_PORT', default: '8080', help: 'listen port' },
  name: { flag: '--name', env: 'APP_NAME', help: 'instance name' },
  offset: { flag: '--offset', default: '0', help: 'signed offset' },
  dryRun: {
    flag: '--dry-run',
    env: 'APP_DRY_RUN',
    default: 'false',
    boolean: true,
    help: 'do nothing',
  },
} as const satisfies OptionTable;

const Schema = z.object({
  port: z.coerce
    .number()
    .int()
    .min(1, 'a port from 1 to 65535')
    .max(65535, 'a port from 1 to 65535'),
  name: z.string().min(1).optional(),
  offset: z.coerce.number().int(),
  dryRun: z.enum(['true', 'false'], 'true or false').transform((s) => s === 'true'),
});

function config(argv: string[], env: Record<string, string> = {}) {
  const r = parseOptions(OPTIONS, Schema, argv, env);
  if (r.help) throw new Error('unexpected help');
  return r;
}

function failure(argv: string[], env: Record<string, string> = {}): string {
  try {
    parseOptions(OPTIONS, Schema, argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('parseOptions', () => {
  it('falls back to defaults and types the result', () => {
    const { config: c, source } = config([]);
    expect(c).toEqual({ port: 8080, name: undefined, offset: 0, dryRun: false });
    expect(source.port).toBe('--port (default)');
  });

  it('takes flags (--k v and --k=v) over environment over defaults', () => {
    const r = config(['--port=9000', '--name', 'b'], { APP_PORT: '1', APP_NAME: 'a' });
    expect(r.config).toMatchObject({ port: 9000, name: 'b' });
    const fromEnv = config([], { APP_PORT: '1234' });
    expect(fromEnv.config.port).toBe(1234);
    expect(fromEnv.source.port).toBe('APP_PORT');
  });

  it('treats an empty variable as unset unless told otherwise', () => {
    expect(config([], { APP_PORT: '' }).config.port).toBe(8080);
    expect(() =>
      parseOptions(OPTIONS, Schema, [], { APP_PORT: '' }, { emptyEnvIsUnset: false }),
    ).toThrow(/APP_PORT: got ""/);
  });

  it('accepts a separate value that starts with a dash', () => {
    expect(config(['--offset', '-3']).config.offset).toBe(-3);
  });

  it('reads boolean flags without a value, and their variables and =values as text', () => {
    expect(config(['--dry-run']).config.dryRun).toBe(true);
    expect(config([], { APP_DRY_RUN: 'true' }).config.dryRun).toBe(true);
    expect(config(['--dry-run=false'], { APP_DRY_RUN: 'true' }).config.dryRun).toBe(false);
    expect(failure(['--dry-run=maybe'])).toBe('--dry-run: got "maybe"; expected true or false');
  });

  it('rejects unknown flags, positionals and short options, naming the argument', () => {
    expect(failure(['--colour', 'red'])).toMatch(
      /^unknown argument "--colour"; expected one of --port, --name, --offset, --dry-run, --help$/,
    );
    expect(failure(['--colour=red'])).toMatch(/^unknown argument "--colour=red"/);
    expect(failure(['stray'])).toMatch(/^unknown argument "stray"/);
    expect(failure(['--'])).toMatch(/^unknown argument "--"/);
    expect(failure(['-x'])).toMatch(/^unknown argument "-x"/);
  });

  it('rejects a flag without its value', () => {
    expect(failure(['--name'])).toBe('--name: missing value; expected instance name');
  });

  it('names the source, the value and what was expected for a bad value', () => {
    expect(failure(['--port', 'ninety'])).toContain('--port: got "ninety"; expected');
    expect(failure([], { APP_PORT: '70000' })).toBe(
      'APP_PORT: got "70000"; expected a port from 1 to 65535',
    );
  });

  it('lets the app word its messages', () => {
    const settings = {
      messages: {
        unknown: (_arg: string, name: string) => `no such flag ${name}`,
        missing: (spec: { flag: string }) => `flag ${spec.flag} needs a value`,
        invalid: (bad: { key: string; value: string | undefined; expected: string }) =>
          `invalid ${bad.key}=${JSON.stringify(bad.value)}: ${bad.expected}`,
      },
    };
    const run = (argv: string[]) => () => parseOptions(OPTIONS, Schema, argv, {}, settings);
    expect(run(['--nope=1'])).toThrow('no such flag --nope');
    expect(run(['--port'])).toThrow('flag --port needs a value');
    expect(run(['--port', '0'])).toThrow('invalid port="0": a port from 1 to 65535');
  });

  it('answers --help (or -h) with the usage text, before validating values', () => {
    const r = parseOptions(
      OPTIONS,
      Schema,
      ['--port', 'bad', '-h'],
      {},
      { header: 'Usage: app\n' },
    );
    expect(r).toEqual({ help: true, usage: usage(OPTIONS, 'Usage: app\n') });
    expect(parseOptions(OPTIONS, Schema, ['--help'], {}).help).toBe(true);
    expect(() => parseOptions(OPTIONS, Schema, ['--help'], {}, { helpFlag: false })).toThrow(
      /unknown argument "--help"; expected one of .*--dry-run$/,
    );
  });
});

describe('usage', () => {
  it('lists every flag with its variable, meaning and default', () => {
    expect(usage(OPTIONS, 'Usage: app\n').split('\n')).toEqual([
      'Usage: app',
      '',
      '  --port <value>  [APP_PORT]',
      '      listen port (default 8080)',
      '  --name <value>  [APP_NAME]',
      '      instance name',
      '  --offset <value>',
      '      signed offset (default 0)',
      '  --dry-run  [APP_DRY_RUN]',
      '      do nothing (default false)',
      '  --help',
      '      print this text and exit',
    ]);
  });
});
