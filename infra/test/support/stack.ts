/** Test access to the local stack: ports from the one source of truth, and stack.sh commands. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

export const REPO_ROOT = path.resolve(__dirname, '../../..');
export const STACK_SH = path.join(REPO_ROOT, 'infra/local/stack.sh');

const run = promisify(execFile);

/** Parses `NAME=value` lines (comments and blanks ignored); a non-numeric port is a broken file. */
export function parsePorts(text: string): Record<string, number> {
  const ports: Record<string, number> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([A-Z0-9_]+)=(\d+)$/.exec(line);
    if (m === null || m[1] === undefined || m[2] === undefined)
      throw new Error(`ports.env: bad line '${line}'`);
    ports[m[1]] = Number(m[2]);
  }
  return ports;
}

export function readPorts(): Record<string, number> {
  return parsePorts(readFileSync(path.join(REPO_ROOT, 'infra/local/ports.env'), 'utf8'));
}

export function port(name: string): number {
  const p = readPorts()[name];
  if (p === undefined) throw new Error(`ports.env has no ${name}`);
  return p;
}

export const KAFKA_NODES = [1, 2, 3] as const;
export type KafkaNode = (typeof KAFKA_NODES)[number];

export function brokerAddress(node: KafkaNode): string {
  return `127.0.0.1:${port(`KAFKA_${node}_PORT`)}`;
}

export function bootstrap(): string[] {
  return KAFKA_NODES.map(brokerAddress);
}

/** Runs `stack.sh <args>`; rejects with its output when it fails. */
export async function stack(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('bash', [STACK_SH, ...args], {
      cwd: REPO_ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `stack.sh ${args.join(' ')} failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`,
    );
  }
}

/** Idempotent: a healthy stack is left alone (`status` is cheap; `up` runs a JVM to check topics). */
export async function ensureStackUp(): Promise<void> {
  try {
    await stack('status');
  } catch {
    await stack('up');
  }
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
