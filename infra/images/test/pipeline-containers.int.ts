/**
 * `tools/pipeline up --containers`, `status` and `down` for real: every pipeline app (gatekeeper,
 * loader, pager, collector, probe) starts from its image as a container on the host network, non-root,
 * read-only root filesystem; a seeded run through them reconciles exact; the probe's events travel
 * collector -> gatekeeper -> loader -> ClickHouse; `down` removes every container.
 *
 * The shared pipeline keeps running: this is a second pipeline (PIPELINE_INSTANCE,
 * tools/lib/pipeline-instance.sh) on its own ports, topics, transactional id, groups and run ids.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
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
const APPS = ['gatekeeper', 'loader', 'pager', 'collector', 'probe'] as const;
const havePodman = podmanAvailable('pipeline --containers');

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** The first of six consecutive free ports (tools/lib/pipeline-instance.sh's PIPELINE_PORT_BASE). */
async function freePortBlock(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 800) * 10;
    const free = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no block of six free ports found in 20000-28000');
}

async function metric(port: number, pattern: RegExp): Promise<number> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const m = pattern.exec(text);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

(havePodman ? describe : describe.skip)('tools/pipeline up --containers (an instance)', () => {
  const instance = `itpc-${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const topics = runTopics(instance);
  let portBase = 0;
  const kafka = adminOptions(instance);

  const pipeline = (...args: string[]): SpawnSyncReturns<string> =>
    spawnSync('bash', ['tools/pipeline', ...args], {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        PIPELINE_INSTANCE: instance,
        PIPELINE_PORT_BASE: String(portBase),
      },
    });
  const podman = (...args: string[]): SpawnSyncReturns<string> =>
    spawnSync('podman', ['--runtime', 'runc', ...args], { encoding: 'utf8' });
  /** COMPONENT -> [PID, PORT, STATE] from `tools/pipeline status`. */
  const status = (): Record<string, string[]> => {
    const r = pipeline('status');
    expect(r.status).toBe(0);
    return Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/\s+/))
        .map(([name, ...rest]) => [name, rest]),
    );
  };

  beforeAll(async () => {
    spawnSync('bash', ['infra/local/stack.sh', 'up'], { cwd: root, stdio: 'inherit' });
    // Only the images that are missing or stale are built (tools/images keeps a stamp of their inputs).
    const images = spawnSync('bash', ['tools/images', 'build', ...APPS], {
      cwd: root,
      stdio: 'inherit',
    });
    expect(images.status).toBe(0);
    portBase = await freePortBlock();
    await createRunTopics(kafka, topics);
  });

  afterAll(async () => {
    if (!havePodman) return;
    const down = pipeline('down');
    if (down.status !== 0) process.stderr.write(down.stdout + down.stderr);
    await deleteTopics(kafka, Object.values(topics));
    // The instance's files: what `tools/pipeline` kept for it (its apps' state and logs) and its results.
    for (const file of [
      path.join(root, 'results/tmp', `pipeline-${instance}`),
      path.join(root, '.run', `apps-${instance}`),
      path.join(root, '.run', `apps-${instance}.migrate.log`),
    ])
      rmSync(file, { recursive: true, force: true });
  });

  it('starts every app as a container, healthy on the instance ports', () => {
    const up = pipeline('up', '--containers');
    if (up.status !== 0) process.stderr.write(up.stdout + up.stderr);
    expect(up.status).toBe(0);
    const s = status();
    const ports = { gatekeeper: 0, probe: 1, loader: 2, pager: 3, collector: 5 };
    for (const app of APPS) {
      expect({ app, row: s[app] }).toEqual({
        app,
        row: ['container', String(portBase + ports[app]), 'healthy'],
      });
    }
  });

  it('runs each container as a non-root user, on the host network, with a read-only root filesystem', () => {
    for (const app of APPS) {
      const name = `clickstream-${instance}-${app}`;
      const inspect = podman(
        'inspect',
        '--format',
        '{{.Config.User}} {{.HostConfig.NetworkMode}} {{.HostConfig.ReadonlyRootfs}}',
        name,
      );
      expect({ app, inspect: inspect.stdout.trim() }).toEqual({ app, inspect: 'node host true' });
      expect({ app, uid: podman('exec', name, 'id', '-u').stdout.trim() }).toEqual({
        app,
        uid: '1000',
      });
      expect(podman('exec', name, 'touch', '/app/written').status).not.toBe(0);
    }
  });

  it('refuses to start the same instance as host processes while its containers run', () => {
    const up = pipeline('up');
    expect(up.status).not.toBe(0);
    expect(up.stderr).toMatch(/runs as a container/);
  });

  it('carries a seeded run with every fault kind, exact at raw, valid, dlq and in ClickHouse', () => {
    const seed = String(3000 + Math.floor(Math.random() * 1_000_000));
    const summary = sendSeededRun(root, {
      runId: `${instance}-run`,
      topic: topics.raw,
      count: 4000,
      seed,
    });
    expectExactAtEventLayers(root, summary.run_id, topics);
  });

  it("sees the probe's events, half of them sent through the collector container, in ClickHouse", async () => {
    const probePort = portBase + 1;
    const until = Date.now() + 120_000;
    let seen = 0;
    let viaHttp = 0;
    while (Date.now() < until) {
      viaHttp = await metric(probePort, /^probe_sent_total\{front_door="http"\} (\d+)/m);
      seen = await metric(probePort, /^probe_freshness_seconds_count\{layer="valid"\} (\d+)/m);
      if (viaHttp >= 1 && seen >= 3) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    expect({ viaHttp: viaHttp >= 1, seen: seen >= 3 }).toEqual({ viaHttp: true, seen: true });
    const accepted = await metric(
      portBase + 5,
      /^collector_events_total\{outcome="acked"\} (\d+)/m,
    );
    expect(accepted).toBeGreaterThan(0);
  });

  it('stops and removes every container on down; status then shows them down', () => {
    const down = pipeline('down');
    expect(down.status).toBe(0);
    const s = status();
    for (const app of APPS) expect({ app, state: s[app]?.[2] }).toEqual({ app, state: 'down' });
    const left = podman('ps', '-a', '--format', '{{.Names}}', '--filter', `name=${instance}`);
    expect(left.stdout.trim()).toBe('');
  });
});
