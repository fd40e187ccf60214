/** A Node script (an app's dist/main.js, a fixture) in a child process for integration tests: its output kept, its JSON log lines readable, stopped without leaking. */

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { sleep } from './wait';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface NodeChildOptions {
  /** Write stdout and stderr to this file (kept after the test) instead of keeping them in memory. */
  logFile?: string;
  /** stderr straight to the test's stderr instead of kept (in-memory mode only). */
  inheritStderr?: boolean;
  /** How much output is kept in memory, characters (default 1,000,000). */
  keepChars?: number;
  env?: NodeJS.ProcessEnv;
}

const running = new Set<NodeChild>();

/** SIGKILLs every child still running (an afterAll of a failed spec). */
export async function killAllChildren(): Promise<void> {
  await Promise.all([...running].map((c) => c.stop('SIGKILL')));
}

export class NodeChild {
  readonly child: ChildProcess;
  readonly exited: Promise<Exit>;
  private kept = '';

  constructor(
    readonly script: string,
    args: readonly string[],
    private readonly o: NodeChildOptions = {},
  ) {
    if (!fs.existsSync(script)) throw new Error(`${script} is missing: build it first`);
    if (o.logFile !== undefined) {
      const out = fs.openSync(o.logFile, 'a');
      this.child = spawn(process.execPath, [script, ...args], {
        stdio: ['ignore', out, out],
        env: o.env,
      });
      fs.closeSync(out);
    } else {
      this.child = spawn(process.execPath, [script, ...args], {
        stdio: ['ignore', 'pipe', o.inheritStderr ? 'inherit' : 'pipe'],
        env: o.env,
      });
      const limit = o.keepChars ?? 1_000_000;
      const keep = (b: Buffer): void => {
        this.kept = (this.kept + b.toString('utf8')).slice(-limit);
      };
      this.child.stdout?.on('data', keep);
      this.child.stderr?.on('data', keep);
    }
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    running.add(this);
    void this.exited.then(() => running.delete(this));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Everything printed so far (the kept tail in memory mode). */
  output(): string {
    if (this.o.logFile === undefined) return this.kept;
    return fs.existsSync(this.o.logFile) ? fs.readFileSync(this.o.logFile, 'utf8') : '';
  }

  /** The complete JSON lines printed so far (pino logs, fixture reports). */
  jsonLines(): Record<string, unknown>[] {
    const lines = this.output().split('\n');
    lines.pop(); // the last piece may be a line still being written
    return lines
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** Resolves once pred holds for the JSON lines so far; rejects when the process exits first or after timeoutMs. */
  async waitUntil(
    what: string,
    pred: (lines: Record<string, unknown>[]) => boolean,
    timeoutMs = 120_000,
    everyMs = 50,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (pred(this.jsonLines())) return;
      if (!this.running) {
        if (pred(this.jsonLines())) return;
        throw new Error(
          `${this.script} exited (${this.child.exitCode ?? this.child.signalCode}) before ${what}`,
        );
      }
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} from ${this.script}`);
      await sleep(everyMs);
    }
  }

  kill(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** Sends the signal (unless it already ended) and waits for the exit; SIGKILL after graceMs so a test never leaks a process. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 60_000): Promise<Exit> {
    this.kill(signal);
    const timer = setTimeout(() => this.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
