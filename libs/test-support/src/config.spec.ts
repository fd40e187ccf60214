import * as fs from 'node:fs';
import * as path from 'node:path';
import { localBootstrap, localPort, repoRoot } from './config';

describe('test-support config', () => {
  it('finds the repository root from a nested directory', () => {
    expect(fs.existsSync(path.join(repoRoot(), 'nx.json'))).toBe(true);
    expect(repoRoot(path.join(repoRoot(), 'libs/test-support/src'))).toBe(repoRoot());
  });
  it('reads the three broker ports from infra/local/ports.env', () => {
    expect(localBootstrap({})).toBe('127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092');
  });
  it('reads any port of the stack by its key, naming a key that is not there', () => {
    expect(localPort('CLICKHOUSE_TCP_PORT')).toBe(19000);
    expect(() => localPort('NO_SUCH_PORT')).toThrow('infra/local/ports.env has no NO_SUCH_PORT');
  });
  it('lets KAFKA_BOOTSTRAP override the stack file', () => {
    expect(localBootstrap({ KAFKA_BOOTSTRAP: '127.0.0.1:1' })).toBe('127.0.0.1:1');
  });
});
