/** The kill specs' faults, through the stack runner: SIGKILL of the TaskManager or of a Kafka broker, and the restart after it. */

import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { repoRoot, sleep, waitFor } from './harness';

const exec = promisify(execFile);
const TASKMANAGER_PID_FILE = path.join(repoRoot(), '.run/pids/flink-taskmanager.pid');

/** Runs `bash infra/local/stack.sh <args>`. */
export async function stack(...args: string[]): Promise<void> {
  await exec('bash', [path.join(repoRoot(), 'infra/local/stack.sh'), ...args], { timeout: 300000 });
}

/** Starts whatever of the stack is down: a kill spec's clean-up, so that the next spec finds it running whatever happened. */
export function stackUp(): Promise<void> {
  return stack('up');
}

/** Waits a random 8-14 s, then runs `fault`: with steady load it usually lands in an open Kafka transaction and an unfinished checkpoint. */
export async function strikeSoon<T>(fault: () => Promise<T>): Promise<T> {
  await sleep(8000 + Math.floor(Math.random() * 6000));
  return fault();
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILLs the TaskManager, waits until it is gone and, 3 s later, starts a new one; resolves to the killed pid. */
export async function killTaskManager(): Promise<number> {
  const pid = Number(fs.readFileSync(TASKMANAGER_PID_FILE, 'utf8').trim());
  process.kill(pid, 'SIGKILL');
  await waitFor(
    'the TaskManager to die',
    async () => isAlive(pid),
    (alive) => !alive,
    30000,
    200,
  );
  await sleep(3000);
  await stackUp();
  return pid;
}

/**
 * SIGKILLs a running Kafka broker (another engineer's experiment may have one down already) and restarts it 8 s later;
 * resolves to its node number, or '' when none could be killed.
 */
export async function killBroker(): Promise<string> {
  const first = Math.floor(Math.random() * 3);
  for (let i = 0; i < 3; i++) {
    const node = String(1 + ((first + i) % 3));
    try {
      await stack('kill-node', node);
    } catch {
      continue; // not running: try the next
    }
    await sleep(8000);
    await stack('restart-node', node);
    return node;
  }
  return '';
}
