/**
 * A private, throw-away clickhouse-server (the Debian binary the stack uses) on free ports, so that a
 * test can kill and restart ClickHouse without disturbing the shared stack that others are testing on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './harness';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function configXml(dir: string, http: number, tcp: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/server.log</log><errorlog>${dir}/server.err.log</errorlog></logger>
  <http_port>${http}</http_port>
  <tcp_port>${tcp}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>53687091</mark_cache_size>
  <max_concurrent_queries>20</max_concurrent_queries>
</yandex>
`;
}

const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>1000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;

export class PrivateClickHouse {
  private child: ChildProcess | null = null;
  private constructor(
    readonly dir: string,
    readonly httpPort: number,
    private readonly tcpPort: number,
  ) {}

  static async create(): Promise<PrivateClickHouse> {
    const dir = mkdtempSync(join(tmpdir(), 'loader-ch-'));
    const ch = new PrivateClickHouse(dir, await freePort(), await freePort());
    writeFileSync(join(dir, 'config.xml'), configXml(dir, ch.httpPort, ch.tcpPort));
    writeFileSync(join(dir, 'users.xml'), USERS_XML);
    return ch;
  }

  get url(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  async start(): Promise<void> {
    this.child = spawn(
      '/usr/sbin/clickhouse-server',
      [`--config-file=${join(this.dir, 'config.xml')}`],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await fetch(`${this.url}/ping`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      if (this.child.exitCode !== null || Date.now() > deadline)
        throw new Error(`private clickhouse-server did not start (see ${this.dir}/server.err.log)`);
      await sleep(200);
    }
  }

  /** SIGKILL (a crash, not a clean shutdown) and wait for the process to be gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await gone;
    this.child = null;
  }

  async destroy(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
