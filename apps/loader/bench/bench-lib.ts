/** Helpers of the freshness benchmark: child processes of the built apps, percentiles, sleeping. */
import { spawn, type ChildProcess } from 'node:child_process';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Child {
  proc: ChildProcess;
  name: string;
  tail: () => string;
}

/** Starts `node <script> ...args`, keeping the last 20 kB of its output for the error message if it dies. */
export function startChild(name: string, script: string, args: string[]): Child {
  const proc = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer): void => {
    out = (out + b.toString('utf8')).slice(-20_000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  return { proc, name, tail: () => out };
}

export async function stopChild(c: Child): Promise<number | null> {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return c.proc.exitCode;
  const exited = new Promise<number | null>((r) => c.proc.once('exit', (code) => r(code)));
  c.proc.kill('SIGTERM');
  return exited;
}

export function assertAlive(children: Child[]): void {
  for (const c of children) {
    if (c.proc.exitCode !== null || c.proc.signalCode !== null) {
      throw new Error(`${c.name} exited (${c.proc.exitCode ?? c.proc.signalCode}):\n${c.tail()}`);
    }
  }
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? null;
}

export function summary(values: number[]): {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
} {
  const s = [...values].sort((a, b) => a - b);
  const mean = s.length === 0 ? null : Math.round(s.reduce((a, b) => a + b, 0) / s.length);
  return {
    count: s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? null,
    mean,
  };
}
