/** Broker-level seams for the failure tests and benchmarks: find a transaction coordinator, kill and restart a node through the stack runner. */

import * as path from 'path';
import { execFile } from 'child_process';
import { promisify } from 'util';
import { transactionCoordinator as coordinatorOf } from '@clickstream/kafka-tx';
import { clusterOptions, repoRoot } from './harness';

const run = promisify(execFile);

/** Node id of the broker coordinating this transactional id, or null if it cannot tell. */
export function transactionCoordinator(transactionalId: string): Promise<number | null> {
  return coordinatorOf(clusterOptions('gatekeeper-test-cluster'), transactionalId).catch(
    () => null,
  );
}

/** `bash infra/local/stack.sh kill-node N` / `restart-node N`. */
export async function stackNode(
  command: 'kill-node' | 'restart-node',
  node: number,
): Promise<void> {
  await run('bash', [path.join(repoRoot(), 'infra/local/stack.sh'), command, String(node)], {
    timeout: 180_000,
  });
}

/** Samples a monotone counter every `everyMs` and records when it changed, until stopped. */
export class CounterTimeline {
  readonly changes: Array<{ at: number; value: number }> = [];
  private stopped = false;
  private readonly done: Promise<void>;

  constructor(read: () => Promise<number>, everyMs = 100) {
    this.done = (async () => {
      let last = NaN;
      while (!this.stopped) {
        try {
          const value = await read();
          if (value !== last && !Number.isNaN(value)) this.changes.push({ at: Date.now(), value });
          last = value;
        } catch {
          // The process may be restarting; the next sample will tell.
        }
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }

  /** From `from`: time to the first change after it, and the longest gap between changes (including from `from` to the first). */
  stallAfter(from: number, until: number): { firstCommitMs: number | null; longestGapMs: number } {
    const after = this.changes.filter((c) => c.at > from && c.at <= until).map((c) => c.at);
    let longest = 0;
    let previous = from;
    for (const at of after) {
      longest = Math.max(longest, at - previous);
      previous = at;
    }
    return {
      firstCommitMs: after.length > 0 ? (after[0] as number) - from : null,
      longestGapMs: longest,
    };
  }
}

/** Waits until `stack.sh status` reports every component healthy (other people's tests kill brokers too). */
export async function waitForHealthyKafka(timeoutMs = 180_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const { stdout } = await run(
        'bash',
        [path.join(repoRoot(), 'infra/local/stack.sh'), 'status'],
        { timeout: 30_000 },
      ).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
      const kafka = stdout.split('\n').filter((l) => l.startsWith('kafka-'));
      if (
        kafka.length === 3 &&
        kafka.every((l) => l.trim().endsWith('healthy') && !l.includes('unhealthy'))
      )
        return true;
    } catch {
      // try again
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
  return false;
}
