import { ConfigError, parseConfig, usage, type GatekeeperConfig } from './config';

function config(argv: string[], env: Record<string, string> = {}): GatekeeperConfig {
  const parsed = parseConfig(argv, env);
  if (parsed.help) throw new Error('unexpected --help');
  return parsed.config;
}

function failure(argv: string[], env: Record<string, string> = {}): string {
  try {
    parseConfig(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('has working defaults for the local stack', () => {
    const c = config([]);
    expect(c).toMatchObject({
      rawTopic: 'clickstream.raw',
      validTopic: 'events.valid',
      dlqTopic: 'events.dlq',
      metricsHost: '127.0.0.1',
      metricsPort: 9400,
      groupId: 'gatekeeper',
      instanceId: '0',
      transactionalId: 'gatekeeper-0',
    });
    expect(c.bootstrap).toContain('127.0.0.1:19092');
    expect(c.connectTimeoutMs).toBeUndefined();
  });

  it('reads flags (both --k v and --k=v) over environment over defaults', () => {
    const c = config(['--raw-topic', 'r1', '--instance-id=b', '--batch-records', '50'], {
      GATEKEEPER_RAW_TOPIC: 'r0',
      GATEKEEPER_METRICS_PORT: '9500',
      GATEKEEPER_INSTANCE_ID: 'a',
    });
    expect(c.rawTopic).toBe('r1');
    expect(c.metricsPort).toBe(9500);
    expect(c.instanceId).toBe('b');
    expect(c.transactionalId).toBe('gatekeeper-b');
    expect(c.batchRecords).toBe(50);
  });

  it('passes Kafka timeouts through only when given', () => {
    const c = config([
      '--request-timeout-ms',
      '5000',
      '--socket-timeout-ms',
      '4000',
      '--transaction-timeout-ms',
      '15000',
    ]);
    expect(c).toMatchObject({
      requestTimeoutMs: 5000,
      socketTimeoutMs: 4000,
      transactionTimeoutMs: 15000,
      stallExitMs: 15000,
    });
    expect(config([]).requestTimeoutMs).toBeUndefined();
  });

  it('names the key, the value and what was expected', () => {
    const message = failure(['--metrics-port', 'ninety']);
    expect(message).toContain('--metrics-port');
    expect(message).toContain('"ninety"');
    expect(message).toContain('an integer from 0 to 65535');
    const fromEnv = failure([], { GATEKEEPER_BATCH_MS: '0' });
    expect(fromEnv).toContain('GATEKEEPER_BATCH_MS');
    expect(fromEnv).toContain('"0"');
    expect(failure(['--bootstrap', 'localhost'])).toContain('host:port');
    expect(failure(['--raw-topic', 'bad topic'])).toContain('topic name');
    expect(failure(['--log-level', 'loud'])).toContain('one of fatal');
  });

  it('rejects unknown flags and flags without a value', () => {
    expect(failure(['--raw', 'x'])).toContain('unknown argument "--raw"');
    expect(failure(['--dlq-topic'])).toContain('--dlq-topic: missing value');
  });

  it('answers --help with a usage text that lists every flag', () => {
    expect(parseConfig(['--help', '--metrics-port', 'bad'], {})).toEqual({ help: true });
    for (const flag of [
      '--bootstrap',
      '--group-id',
      '--instance-id',
      '--raw-topic',
      '--valid-topic',
      '--dlq-topic',
      '--metrics-port',
      '--batch-records',
      '--batch-ms',
    ]) {
      expect(usage()).toContain(flag);
    }
  });
});
