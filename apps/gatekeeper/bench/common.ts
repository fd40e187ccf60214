/** Shared parts of the gatekeeper benchmarks: CPU time of a process, filling a raw topic, writing results/bench/*.json. */

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { produce, repoRoot, seedRecords, type Fate } from '../test/harness';

/** User + system CPU seconds of a live process, all its threads included (librdkafka's too). */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the ")" closing the command name; utime and stime are fields 14 and 15 of the whole line.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

/** Fills a raw topic with `count` seeded sends (1 in `poisonEvery` poison), in chunks so memory stays flat. */
export async function fillRaw(
  topic: string,
  runId: string,
  count: number,
  poisonEvery: number,
  fates?: Map<number, Fate>,
): Promise<void> {
  const chunk = 20_000;
  for (let first = 0; first < count; first += chunk) {
    const seeded = seedRecords(topic, runId, first, Math.min(chunk, count - first), poisonEvery);
    if (fates) for (const [seq, fate] of seeded.fates) fates.set(seq, fate);
    await produce(seeded.records);
  }
}

export function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(
      `${name}: got ${JSON.stringify(process.argv[i + 1])}; expected a positive number`,
    );
  return value;
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot() })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

export function writeResult(name: string, result: object): string {
  const dir = path.join(repoRoot(), 'results/bench');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    loadAvg1m: os.loadavg()[0],
  };
  fs.writeFileSync(
    file,
    `${JSON.stringify({ name, at: new Date().toISOString(), commit: gitCommit(), machine, ...result }, null, 2)}\n`,
  );
  return file;
}
