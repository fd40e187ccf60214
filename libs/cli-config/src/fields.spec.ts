import {
  existingDirectory,
  finiteNumber,
  hostPortList,
  identifier,
  intIn,
  logLevel,
  numberIn,
  topicName,
} from './fields';

const issue = (r: { success: boolean; error?: { issues: { message: string }[] } }) =>
  r.success ? null : (r.error?.issues[0]?.message ?? '?');

describe('shared fields', () => {
  it('numberIn takes fractions in range from text, and names the range otherwise', () => {
    expect(numberIn(0, 0.9).parse('0.5')).toBe(0.5);
    for (const bad of ['-0.1', '0.91', 'x', 'Infinity', '']) {
      expect(issue(numberIn(0, 0.9).safeParse(bad))).toBe('a number from 0 to 0.9');
    }
  });
  it('finiteNumber takes any finite number from text', () => {
    expect(finiteNumber.parse('-2.5')).toBe(-2.5);
    for (const bad of ['x', 'NaN', 'Infinity', ' ']) {
      expect(issue(finiteNumber.safeParse(bad))).toBe('a finite number');
    }
  });
  it('intIn takes integers in range from text, and names the range otherwise', () => {
    expect(intIn(1, 10).parse('7')).toBe(7);
    for (const bad of ['0', '11', '1.5', 'x', 'Infinity', '']) {
      expect(issue(intIn(1, 10).safeParse(bad))).toBe('an integer from 1 to 10');
    }
  });

  it('hostPortList takes host:port lists', () => {
    expect(hostPortList.parse('127.0.0.1:19092, b:2,[::1]:3')).toBe('127.0.0.1:19092, b:2,[::1]:3');
    expect(issue(hostPortList.safeParse('localhost'))).toBe('a comma-separated list of host:port');
  });

  it('topicName, identifier and logLevel say what they expected', () => {
    expect(topicName.parse('events.valid')).toBe('events.valid');
    expect(issue(topicName.safeParse('bad topic'))).toMatch(/a Kafka topic name/);
    expect(identifier.parse('events_1')).toBe('events_1');
    expect(issue(identifier.safeParse('x;drop'))).toBe('a plain identifier');
    expect(logLevel.parse('silent')).toBe('silent');
    expect(issue(logLevel.safeParse('loud'))).toBe(
      'one of fatal, error, warn, info, debug, trace, silent',
    );
  });

  it('existingDirectory takes a directory that exists, not a file or a missing path', () => {
    expect(existingDirectory.parse(__dirname)).toBe(__dirname);
    for (const bad of [__filename, `${__dirname}/nonexistent`, ''])
      expect(issue(existingDirectory.safeParse(bad))).toBe('an existing directory');
  });
});
