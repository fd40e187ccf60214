import { ConfigError, parseCommand, usage } from './config';

describe('parseCommand', () => {
  it('prints help without a command', () => {
    expect(parseCommand([], {})).toEqual({ help: true });
    expect(usage()).toContain('broker-partition');
  });
  it('applies overrides to the catalogue entry', () => {
    const c = parseCommand(['loader-kill', '--rate', '300', '--after', '20', '--repeat', '3'], {});
    if (c.help || c.command !== 'run' || c.experiment.kind !== 'fault')
      throw new Error('expected a fault run');
    expect(c.experiment).toMatchObject({ rate: 300, afterS: 20, fault: { target: 'loader' } });
    expect(c.flags.repeat).toBe(3);
  });
  it('names an unknown experiment and a bad value', () => {
    expect(() => parseCommand(['nope'], {})).toThrow(/unknown experiment 'nope'/);
    expect(() => parseCommand(['loader-kill', '--rate', 'fast'], {})).toThrow(ConfigError);
    expect(() => parseCommand(['broker-stall', '--hold', '0'], {})).toThrow(/needs a hold/);
  });
  it('gives the ladder its rungs', () => {
    const c = parseCommand(['load-ladder', '--rungs', '100,200', '--rung', '20'], {});
    if (c.help || c.command !== 'run' || c.experiment.kind !== 'ladder')
      throw new Error('expected a ladder');
    expect(c.experiment).toMatchObject({ rungs: [100, 200], rungS: 20 });
  });
  it('takes a goal with its key, value and command, and names what is wrong with one', () => {
    const c = parseCommand(
      ['goal', '--key', 'idle_cpu_share', '--value', '0.108', '--measured-by', 'bench 0 60'],
      {},
    );
    if (c.help || c.command !== 'goal') throw new Error('expected a goal');
    expect(c.goal).toEqual({ key: 'idle_cpu_share', value: 0.108, measuredBy: 'bench 0 60' });
    const args = (key: string, value: string) => [
      'goal',
      '--key',
      key,
      '--value',
      value,
      '--measured-by',
      'x',
    ];
    expect(() => parseCommand(args('idle_cpu', '1'), {})).toThrow(/--key.*one of sustained/);
    expect(() => parseCommand(args('idle_cpu_share', 'nan'), {})).toThrow(/a finite number/);
    expect(() => parseCommand(['goal', '--key', 'idle_cpu_share', '--value', '1'], {})).toThrow(
      /--measured-by is required/,
    );
    expect(() => parseCommand(['goal', '--value', '1', '--measured-by', 'x'], {})).toThrow(
      /--key is required/,
    );
  });
});
