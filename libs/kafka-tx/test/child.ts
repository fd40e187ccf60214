/** Child processes for the crash tests: start a fixture script, follow its JSON stdout lines, SIGKILL or SIGTERM it. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export interface Child {
  proc: ChildProcess;
  /** Parsed JSON lines printed so far. */
  lines: Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when pred holds for the lines printed so far (checked on every new line). */
  waitUntil(
    what: string,
    pred: (lines: Record<string, unknown>[]) => boolean,
    timeoutMs?: number,
  ): Promise<void>;
}

const running = new Set<Child>();

/** SIGKILLs every fixture process still running (afterAll of a failed spec). */
export async function killAllChildren(): Promise<void> {
  await Promise.all([...running].map((c) => stopChild(c, 'SIGKILL')));
}

export function startFixture(script: string, args: string[]): Child {
  const proc = spawn(process.execPath, [path.join(__dirname, 'fixtures', script), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let buf = '';
  proc.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    for (const w of waiters) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => {
      for (const w of waiters) w();
      resolve({ code, signal });
    }),
  );
  const child: Child = {
    proc,
    lines,
    exited,
    waitUntil: (what, pred, timeoutMs = 120000) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (pred(lines)) {
            cleanup();
            resolve();
          } else if (proc.exitCode !== null || proc.signalCode !== null) {
            cleanup();
            reject(
              new Error(`${script} exited (${proc.exitCode ?? proc.signalCode}) before ${what}`),
            );
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} from ${script}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
  };
  running.add(child);
  void exited.then(() => running.delete(child));
  return child;
}

/** Sends the signal unless the process already ended, then waits for it to end. */
export async function stopChild(
  c: Child,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill(signal);
  return c.exited;
}
