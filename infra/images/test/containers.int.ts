/**
 * The gatekeeper and the loader as containers (the images tools/images builds, run with podman on the
 * host network, non-root, read-only root filesystem) carry a seeded run with every fault kind, and
 * the reconciler counts raw, valid, dlq and the two ClickHouse tables exact.
 *
 * The shared pipeline keeps running: this test owns its topics, its gatekeeper instance id and
 * consumer groups, and its run id, so neither side sees the other's records or fences its producer.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { deleteTopics } from '@clickstream/kafka-tx';
import { repoRoot } from '@clickstream/test-support';
import {
  adminOptions,
  createRunTopics,
  expectExactAtEventLayers,
  podmanAvailable,
  runTopics,
  sendSeededRun,
} from './seeded-run';

const root = repoRoot(__dirname);
const PODMAN = ['--runtime', 'runc'];
/** As tools/lib/containers.sh: podman's default limits for root cannot be set on this machine. */
const hardNoFile = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).stdout.trim();
const LIMITS = ['--ulimit', `nofile=${hardNoFile}:${hardNoFile}`, '--ulimit', 'nproc=4096:4096'];
const havePodman = podmanAvailable('images:integration');

const run = (cmd: string, args: string[]): string =>
  execFileSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const podman = (...args: string[]): string => run('podman', [...PODMAN, ...args]).trim();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

async function waitHealthy(port: number, container: string, deadlineMs = 60_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    const state = podman('inspect', '--format', '{{.State.Status}}', container);
    if (state !== 'running' || Date.now() > until) {
      throw new Error(
        `${container} not healthy (state ${state}):\n${podman('logs', '--tail', '40', container)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

(havePodman ? describe : describe.skip)('containerised gatekeeper and loader', () => {
  const id = `ctr-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}`;
  const topics = runTopics(`it.${id}`);
  const gatekeeper = `cs-it-gatekeeper-${id}`;
  const loader = `cs-it-loader-${id}`;
  const kafka = adminOptions(id);

  beforeAll(async () => {
    run('bash', ['infra/local/stack.sh', 'up']);
    // Only what this test runs; the base and the shared build stage come from cache after the first time.
    run('bash', ['tools/images', 'build', 'gatekeeper', 'loader']);
    await createRunTopics(kafka, topics);
  });

  afterAll(async () => {
    if (!havePodman) return;
    for (const c of [gatekeeper, loader])
      spawnSync('podman', [...PODMAN, 'rm', '-f', '-t', '10', c]);
    await deleteTopics(kafka, Object.values(topics));
  });

  it('runs as a non-root user on a read-only root filesystem and applies the DDL from inside the image', () => {
    for (const app of ['gatekeeper', 'loader']) {
      expect(
        podman('image', 'inspect', '--format', '{{.Config.User}}', `clickstream/${app}:dev`),
      ).toBe('node');
    }
    // The loader image carries infra/clickhouse/ddl and backfill, where the warehouse library looks for them.
    const out = podman(
      'run',
      '--rm',
      '--network',
      'host',
      '--read-only',
      ...LIMITS,
      'clickstream/loader:dev',
      '--migrate',
    );
    expect(out).toMatch(/ddl|migrat/i);
  });

  it('carries a seeded run with every fault kind, exact at raw, valid, dlq and in ClickHouse', async () => {
    const [gkPort, loaderPort] = [await freePort(), await freePort()];
    podman(
      'run',
      '-d',
      '--name',
      gatekeeper,
      '--network',
      'host',
      '--read-only',
      ...LIMITS,
      'clickstream/gatekeeper:dev',
      '--instance-id',
      id,
      '--group-id',
      `${id}-gatekeeper`,
      '--raw-topic',
      topics.raw,
      '--valid-topic',
      topics.valid,
      '--dlq-topic',
      topics.dlq,
      '--metrics-port',
      String(gkPort),
    );
    podman(
      'run',
      '-d',
      '--name',
      loader,
      '--network',
      'host',
      '--read-only',
      ...LIMITS,
      'clickstream/loader:dev',
      '--group',
      `${id}-loader`,
      '--client-id',
      `${id}-loader`,
      '--topics',
      `valid=${topics.valid},dlq=${topics.dlq}`,
      '--metrics-port',
      String(loaderPort),
    );
    await waitHealthy(gkPort, gatekeeper);
    await waitHealthy(loaderPort, loader);
    // The containers' processes are not root, and their root filesystem refuses writes.
    expect(podman('exec', gatekeeper, 'id', '-u')).not.toBe('0');
    expect(podman('inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', loader)).toBe('true');
    const touch = spawnSync('podman', [...PODMAN, 'exec', loader, 'touch', '/app/written'], {
      encoding: 'utf8',
    });
    expect(touch.status).not.toBe(0);

    const seed = String(2000 + Math.floor(Math.random() * 1_000_000));
    const summary = sendSeededRun(root, {
      runId: `${id}-run`,
      topic: topics.raw,
      count: 6000,
      seed,
    });
    const report = expectExactAtEventLayers(root, summary.run_id, topics);
    expect(report.verdict).toBe('exact');
  });
});
