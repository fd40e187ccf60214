import { consumerConfig, producerConfig, resolveTimeouts } from './settings';
import type { KafkaClientOptions } from './types';

const logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
const o: KafkaClientOptions = { bootstrap: '127.0.0.1:19092', clientId: 'c', logger };

describe('settings', () => {
  it('defaults to timeouts of seconds, not librdkafka minute-long defaults', () => {
    const p = producerConfig(o, 'tx-1');
    expect(p['socket.connection.setup.timeout.ms']).toBeLessThanOrEqual(5000);
    expect(p['socket.timeout.ms']).toBeLessThanOrEqual(10000);
    expect(p['reconnect.backoff.max.ms']).toBeLessThanOrEqual(1000);
    expect(p['transaction.timeout.ms']).toBe(60000);
    expect(p['transactional.id']).toBe('tx-1');
    expect(p['enable.idempotence']).toBe(true);
    expect(p.acks).toBe('all');
    expect(producerConfig(o)['transactional.id']).toBeUndefined();
  });

  it('configures consumers for manual, post-processing offset commits', () => {
    const c = consumerConfig(o, {
      groupId: 'g',
      isolation: 'read_committed',
      startFrom: 'earliest',
    });
    expect(c).toMatchObject({
      'group.id': 'g',
      'isolation.level': 'read_committed',
      'enable.auto.commit': false,
      'enable.auto.offset.store': false,
    });
  });

  it('batches produce requests for 50 ms unless the caller asks for less', () => {
    expect(producerConfig(o)['linger.ms']).toBe(50);
    expect(producerConfig(o, 'tx-1')['linger.ms']).toBe(50);
    expect(producerConfig({ ...o, lingerMs: 0 })['linger.ms']).toBe(0);
    expect(producerConfig({ ...o, lingerMs: 5 })['linger.ms']).toBe(5);
    expect(() => producerConfig({ ...o, lingerMs: -1 })).toThrow(
      'lingerMs=-1 is invalid, expected an integer in [0, 10000]',
    );
    expect(() => producerConfig({ ...o, lingerMs: 2.5 })).toThrow('lingerMs=2.5');
  });

  it('names the option, the value and the expected range when a value is bad', () => {
    expect(() => resolveTimeouts({ ...o, connectTimeoutMs: 10 })).toThrow(
      'connectTimeoutMs=10 is invalid, expected an integer in [1000, 300000]',
    );
    expect(() => resolveTimeouts({ ...o, socketTimeoutMs: 60000 })).toThrow(
      'socketTimeoutMs=60000',
    );
    expect(() => resolveTimeouts({ ...o, bootstrap: ' ' })).toThrow('bootstrap');
  });
});
