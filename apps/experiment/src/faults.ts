/** The one seam through which experiments touch the stack: resolve a target, inject its fault, restore it. */

import * as fs from 'fs';
import * as path from 'path';
import { execFile } from 'child_process';
import { promisify } from 'util';
import { transactionCoordinator, type Logger as KafkaLogger } from '@clickstream/kafka-tx';
import { isBrokerTarget, type Fault, type Target } from './catalogue';
import { activeController, partitionLeaders, type Prometheus } from './prometheus';

const exec = promisify(execFile);

export interface StackDeps {
  repoRoot: string;
  /** Kafka bootstrap servers of the stack. */
  bootstrap: string;
  prom: Prometheus;
  /** Metrics ports of the supervised apps (their /healthz). */
  healthPorts: Record<'gatekeeper' | 'loader', number>;
  log: (msg: string, data?: Record<string, unknown>) => void;
  /** Handed to the Kafka client (pino-compatible). */
  logger: KafkaLogger;
  sleep: (ms: number) => Promise<void>;
}

/** What a fault did, for experiment.json. */
export interface FaultRecord {
  action: Fault['action'];
  target: Target;
  node: number | null;
  pid: number | null;
  injectedAtMs: number;
  restoreStartedAtMs: number | null;
  restoredAtMs: number | null;
  notes: string[];
}

export async function stack(deps: StackDeps, ...args: string[]): Promise<string> {
  const { stdout } = await exec(
    'bash',
    [path.join(deps.repoRoot, 'infra/local/stack.sh'), ...args],
    {
      timeout: 600_000,
    },
  );
  return stdout.trim();
}

/** The broker a target names right now. */
export async function resolveBroker(
  deps: StackDeps,
  target: Target,
): Promise<{ node: number; notes: string[] }> {
  const notes: string[] = [];
  const controller = await activeController(deps.prom);
  switch (target) {
    case 'broker-2':
      return { node: 2, notes };
    case 'controller-broker':
      if (controller === null) throw new Error('no broker reports itself the active controller');
      notes.push(`active controller: node ${controller}`);
      return { node: controller, notes };
    case 'partition-leader-broker': {
      const leaders = await partitionLeaders(deps.prom);
      const node = leaders.find((n) => n !== controller) ?? leaders[0];
      if (node === undefined) throw new Error('no broker reports a partition leadership');
      notes.push(`leaders (most first): ${leaders.join(', ')}; controller: ${controller ?? '?'}`);
      return { node, notes };
    }
    case 'coordinator-broker': {
      const node = await transactionCoordinator(
        { bootstrap: deps.bootstrap, clientId: 'experiment-faults', logger: deps.logger },
        'gatekeeper-0',
      ).catch(() => null);
      if (node === null)
        throw new Error('no broker leads the __transaction_state partition of gatekeeper-0');
      notes.push(`coordinator of gatekeeper-0: node ${node}; controller: ${controller ?? '?'}`);
      return { node, notes };
    }
    default:
      throw new Error(`${target} is not a broker`);
  }
}

/** The node process a tools/pipeline supervisor runs (the child of the pid in .run/apps/<app>.pid). */
async function appPid(deps: StackDeps, app: 'gatekeeper' | 'loader'): Promise<number> {
  const sup = fs.readFileSync(path.join(deps.repoRoot, '.run/apps', `${app}.pid`), 'utf8').trim();
  const { stdout } = await exec('pgrep', ['-P', sup, '-f', `apps/${app}/dist/main.js`]);
  const pid = Number(stdout.trim().split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0)
    throw new Error(`no ${app} process under supervisor ${sup}`);
  return pid;
}

async function healthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, {
      signal: AbortSignal.timeout(2000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

function firstLine(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  const text = (e.stderr ?? '').trim() || (e.message ?? String(err));
  return text.split('\n').filter(Boolean).slice(-1)[0] ?? 'failed';
}

async function retry(
  deps: StackDeps,
  step: () => Promise<unknown>,
  times: number,
  notes: string[],
): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      await step();
      return;
    } catch (err) {
      notes.push(`attempt ${i}: ${firstLine(err)}`);
      if (i >= times) throw err;
      await deps.sleep(5000);
    }
  }
}

/** Waits (bounded) until `check` holds; returns whether it did. */
async function until(
  deps: StackDeps,
  check: () => Promise<boolean>,
  maxMs: number,
): Promise<boolean> {
  const end = Date.now() + maxMs;
  while (Date.now() < end) {
    if (await check()) return true;
    await deps.sleep(500);
  }
  return false;
}

/**
 * Injects the fault, holds it, restores it. `onInjected` receives the record as soon as the fault is in,
 * and `restore` is also returned through `register` so that an interrupted run still restores.
 */
export async function runFault(
  deps: StackDeps,
  fault: Fault,
  register: (restore: (() => Promise<void>) | null) => void,
): Promise<FaultRecord> {
  const rec: FaultRecord = {
    action: fault.action,
    target: fault.target,
    node: null,
    pid: null,
    injectedAtMs: 0,
    restoreStartedAtMs: null,
    restoredAtMs: null,
    notes: [],
  };
  let restore: () => Promise<void>;
  if (isBrokerTarget(fault.target)) {
    const { node, notes } = await resolveBroker(deps, fault.target);
    rec.node = node;
    rec.notes.push(...notes);
    if (fault.action === 'partition') {
      rec.injectedAtMs = Date.now();
      await stack(deps, 'partition-node', String(node));
      restore = async () => void (await stack(deps, 'heal-node', String(node)));
    } else {
      const pid = Number(await stack(deps, 'pid', `kafka-${node}`));
      rec.pid = pid;
      rec.injectedAtMs = Date.now();
      process.kill(pid, fault.action === 'sigstop' ? 'SIGSTOP' : 'SIGKILL');
      restore =
        fault.action === 'sigstop'
          ? async () => void process.kill(pid, 'SIGCONT')
          : async () => {
              // On a loaded machine a node can take longer than restart-node's health wait to load its
              // logs: then `up` (which starts nothing that runs, and waits again) gets two more chances.
              try {
                await stack(deps, 'restart-node', String(node));
              } catch (err) {
                rec.notes.push(
                  `restart-node ${node} failed: ${firstLine(err)}; waiting with stack.sh up`,
                );
                await retry(deps, () => stack(deps, 'up'), 2, rec.notes);
              }
            };
    }
  } else if (fault.target === 'taskmanager') {
    const pid = Number(await stack(deps, 'pid', 'flink-taskmanager'));
    rec.pid = pid;
    rec.injectedAtMs = Date.now();
    process.kill(pid, fault.action === 'sigstop' ? 'SIGSTOP' : 'SIGKILL');
    restore =
      fault.action === 'sigstop'
        ? async () => void process.kill(pid, 'SIGCONT')
        : // `up` starts what is missing (as infra/flink's TaskManager-kill test does); the jobs restore from checkpoints.
          async () => void (await stack(deps, 'up'));
  } else if (fault.target === 'gatekeeper' || fault.target === 'loader') {
    const app = fault.target;
    const pid = await appPid(deps, app);
    rec.pid = pid;
    rec.injectedAtMs = Date.now();
    process.kill(pid, fault.action === 'sigstop' ? 'SIGSTOP' : 'SIGKILL');
    restore =
      fault.action === 'sigstop'
        ? async () => void process.kill(pid, 'SIGCONT')
        : async () => {
            // The supervisor restarts it after a second; restored once a new process answers /healthz.
            const back = await until(
              deps,
              async () =>
                (await appPid(deps, app).catch(() => pid)) !== pid &&
                (await healthy(deps.healthPorts[app])),
              120_000,
            );
            if (!back) throw new Error(`${app} did not come back healthy within 120 s`);
          };
  } else {
    rec.injectedAtMs = Date.now();
    rec.restoreStartedAtMs = rec.injectedAtMs;
    // `restart` stops and starts in one command: the fault and its restoration are the same step.
    await stack(deps, 'restart', 'clickhouse');
    rec.restoredAtMs = Date.now();
    return rec;
  }
  let restored = false;
  const once = async () => {
    if (restored) return;
    restored = true;
    await restore();
  };
  register(once);
  deps.log('fault injected', {
    action: fault.action,
    target: fault.target,
    node: rec.node,
    pid: rec.pid,
  });
  try {
    await deps.sleep(fault.holdS * 1000);
  } finally {
    rec.restoreStartedAtMs = Date.now();
    await once();
    rec.restoredAtMs = Date.now();
    register(null);
  }
  deps.log('fault restored', { after_ms: rec.restoredAtMs - rec.injectedAtMs });
  return rec;
}
