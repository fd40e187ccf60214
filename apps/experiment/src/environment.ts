/** Versions, machine and git commit of a run, for experiment.json (every probe is bounded and best-effort: "unknown" beats a failed run). */

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFile } from 'child_process';
import { promisify } from 'util';

const exec = promisify(execFile);

async function text(url: string): Promise<string | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
    return res.ok ? (await res.text()).trim() : null;
  } catch {
    return null;
  }
}

async function git(repoRoot: string, ...args: string[]): Promise<string | null> {
  try {
    return (
      await exec('git', ['-C', repoRoot, ...args], { maxBuffer: 16 * 1024 * 1024 })
    ).stdout.trim();
  } catch {
    return null;
  }
}

export async function describeEnvironment(repoRoot: string): Promise<Record<string, unknown>> {
  const kafkaJar = (() => {
    try {
      return fs
        .readdirSync(path.join(repoRoot, '.cache/kafka'))
        .find((f) => /^kafka_2\.13-.*\.jar$/.test(f));
    } catch {
      return undefined;
    }
  })();
  const flink = await text('http://127.0.0.1:8081/overview');
  let flinkVersion: string | null = null;
  try {
    flinkVersion = flink
      ? ((JSON.parse(flink) as { 'flink-version'?: string })['flink-version'] ?? null)
      : null;
  } catch {
    flinkVersion = null;
  }
  const status = await git(repoRoot, 'status', '--porcelain', '--untracked-files=no');
  const kafkaNet = await exec('bash', [path.join(repoRoot, 'infra/local/stack.sh'), 'net'], {
    timeout: 10_000,
  }).then(
    (r) => r.stdout.trim(),
    () => null,
  );
  return {
    versions: {
      node: process.version,
      kafka: kafkaJar?.replace(/^kafka_2\.13-|\.jar$/g, '') ?? null,
      flink: flinkVersion,
      clickhouse: await text('http://127.0.0.1:18123/?query=SELECT%20version()'),
    },
    machine: {
      hostname: os.hostname(),
      platform: `${os.type()} ${os.release()}`,
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? null,
      /** How the Kafka nodes are networked: loopback, or a network namespace each (stack.sh net). */
      kafka_net: kafkaNet,
      memory_gb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
    },
    git: {
      commit: await git(repoRoot, 'rev-parse', 'HEAD'),
      dirty_tracked_files: status === null ? null : status.split('\n').filter(Boolean).length,
    },
  };
}
