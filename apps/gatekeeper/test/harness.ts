/** Integration and benchmark harness: unique topics, seeded raw records, the gatekeeper binary as a child process, and waiting for the group to drain. */

import * as os from 'os';
import * as path from 'path';
import type { ChildProcess } from 'child_process';
import {
  HEADERS,
  REJECT_REASONS,
  encodeEvent,
  type EventType,
  type RejectReason,
} from '@clickstream/contracts';
import {
  committedLag,
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  readTopic,
  type InRecord,
  type KafkaClientOptions,
  type OutRecord,
} from '@clickstream/kafka-tx';
import {
  clusterOptions as stackOptions,
  localBootstrap,
  NodeChild,
  produceAcked,
  repoRoot,
  sleep,
  uniqueId,
  waitFor,
  type Exit,
} from '@clickstream/test-support';
import { POISON, sampleEvent, seqHeaders } from './fixtures';

export const BOOTSTRAP = localBootstrap();
export const PARTITIONS = 6;

export function clusterOptions(clientId: string): KafkaClientOptions {
  return stackOptions(clientId);
}

export { repoRoot, sleep };

export interface RunTopics {
  raw: string;
  valid: string;
  dlq: string;
  group: string;
}

export function freshTopics(label: string): RunTopics {
  const id = uniqueId(label);
  return {
    raw: `gk-test.${id}.raw`,
    valid: `gk-test.${id}.valid`,
    dlq: `gk-test.${id}.dlq`,
    group: `gk-test.${id}`,
  };
}

export async function createRunTopics(t: RunTopics): Promise<void> {
  await createTopics(
    clusterOptions('gk-test-admin'),
    [t.raw, t.valid, t.dlq].map((topic) => ({ topic, partitions: PARTITIONS })),
  );
}

export async function dropRunTopics(t: RunTopics): Promise<void> {
  await deleteTopics(clusterOptions('gk-test-admin'), [t.raw, t.valid, t.dlq]);
}

/** What the test expects of one send, by seq: valid, or dead-lettered with this reason. */
export type Fate = 'valid' | RejectReason;

export interface Seeded {
  runId: string;
  fates: Map<number, Fate>;
  records: OutRecord[];
}

const TYPES: EventType[] = [
  'page_view',
  'product_view',
  'add_to_cart',
  'remove_from_cart',
  'checkout_started',
  'payment_succeeded',
  'payment_failed',
];

/**
 * `count` sends from seq `firstSeq`: every `poisonEvery`-th is poison (cycling through every reason),
 * every 97th valid one goes without a seq header and every 89th with a garbled one (both still valid by their bytes),
 * every 5th is written in schema v1.
 */
export function seedRecords(
  topic: string,
  runId: string,
  firstSeq: number,
  count: number,
  poisonEvery = 10,
): Seeded {
  const fates = new Map<number, Fate>();
  const records: OutRecord[] = [];
  const now = Date.now();
  let poisonIndex = 0;
  for (let seq = firstSeq; seq < firstSeq + count; seq++) {
    const key = `sess-${seq % 257}`;
    if (poisonEvery > 0 && seq % poisonEvery === poisonEvery - 1) {
      const reason = REJECT_REASONS[poisonIndex++ % REJECT_REASONS.length] as RejectReason;
      fates.set(seq, reason);
      records.push({
        topic,
        key: seq % 13 === 0 ? null : key,
        value: POISON[reason](seq, runId, now),
        headers: seqHeaders(seq, runId),
      });
      continue;
    }
    const event = sampleEvent(TYPES[seq % TYPES.length] as EventType, seq, runId, now, {
      session_id: key,
    });
    const headers: Record<string, Buffer> = seqHeaders(seq, runId);
    if (seq % 97 === 0) delete headers[HEADERS.seq];
    else if (seq % 89 === 0) headers[HEADERS.seq] = Buffer.from('12x');
    fates.set(seq, 'valid');
    records.push({ topic, key, value: encodeEvent(event, seq % 5 === 0 ? 1 : 2), headers });
  }
  return { runId, fates, records };
}

/** Produces through kafka-tx's idempotent producer and fails if any send was not acknowledged. */
export async function produce(records: OutRecord[], chunk = 5000): Promise<void> {
  await produceAcked(
    () => createIdempotentProducer(clusterOptions('gk-test-producer')),
    records,
    chunk,
  );
}

/** Waits until the group has committed every raw record (lag 0), polling; throws after timeoutMs. */
export async function waitForDrain(t: RunTopics, timeoutMs: number, everyMs = 500): Promise<void> {
  let last: unknown = 'never polled';
  await waitFor(
    `group ${t.group} to drain ${t.raw}`,
    async () => {
      last = await committedLag(clusterOptions('gk-test-lag'), t.group, t.raw);
      return last === 0;
    },
    timeoutMs,
    everyMs,
  ).catch((e: unknown) => {
    throw new Error(`${e instanceof Error ? e.message : String(e)}; last lag: ${String(last)}`);
  });
}

export interface GatekeeperOptions {
  topics: RunTopics;
  instanceId: string;
  extraArgs?: string[];
}

/** The real gatekeeper binary (apps/gatekeeper/dist/main.js) in a child process, its log in a temp file. */
export class GatekeeperProcess {
  private readonly process: NodeChild;
  readonly logFile: string;
  readonly exited: Promise<Exit>;
  readonly port: Promise<number>;

  constructor(o: GatekeeperOptions) {
    const { raw, valid, dlq, group } = o.topics;
    const args = [
      '--bootstrap',
      BOOTSTRAP,
      '--raw-topic',
      raw,
      '--valid-topic',
      valid,
      '--dlq-topic',
      dlq,
      '--group-id',
      group,
      '--instance-id',
      o.instanceId,
      '--metrics-port',
      '0',
      '--lag-poll-ms',
      '2000',
      ...(o.extraArgs ?? []),
    ];
    this.logFile = path.join(os.tmpdir(), `gatekeeper-${group}-${o.instanceId}-${Date.now()}.log`);
    this.process = new NodeChild(path.join(repoRoot(), 'apps/gatekeeper/dist/main.js'), args, {
      logFile: this.logFile,
    });
    this.exited = this.process.exited;
    this.port = this.waitForPort();
  }

  get child(): ChildProcess {
    return this.process.child;
  }

  get pid(): number {
    return this.process.pid;
  }

  /** The status server's port, read from the "status server listening" log line. */
  private async waitForPort(): Promise<number> {
    const listening = (l: Record<string, unknown>): boolean =>
      l.msg === 'status server listening' && typeof l.port === 'number';
    try {
      await this.process.waitUntil('its port', (lines) => lines.some(listening), 60_000, 100);
    } catch {
      throw new Error(`gatekeeper ${this.pid} never reported its port; log ${this.logFile}`);
    }
    return this.logLines().find(listening)?.port as number;
  }

  logLines(): Array<Record<string, unknown>> {
    return this.process.jsonLines();
  }

  async metrics(): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${await this.port}/metrics`);
    return res.text();
  }

  /** Value of one sample of the /metrics text, or NaN if absent. */
  async metric(name: string): Promise<number> {
    const text = await this.metrics();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? NaN : Number(line.slice(name.length + 1));
  }

  kill(signal: NodeJS.Signals): void {
    this.process.kill(signal);
  }

  /** SIGTERM, then the exit code (SIGKILL after graceMs as a last resort, so a test never leaks a process). */
  stop(graceMs = 60_000): Promise<Exit> {
    return this.process.stop('SIGTERM', graceMs);
  }
}

export interface RunContents {
  raw: InRecord[];
  valid: InRecord[];
  dlq: InRecord[];
}

/** Every committed record of the three topics (read_committed, as every downstream reader sees them). */
export async function readRun(t: RunTopics): Promise<RunContents> {
  const read = (topic: string) =>
    readTopic({ ...clusterOptions('gk-test-reader'), topic, isolation: 'read_committed' });
  return { raw: await read(t.raw), valid: await read(t.valid), dlq: await read(t.dlq) };
}

/**
 * Restarts the gatekeeper whenever it exits without being asked to, as a supervisor would: killed
 * by its own SIGKILL (its watchdog found a hung transaction) or a crash (e.g. a native abort). Every such exit is recorded.
 */
export class SupervisedGatekeeper {
  readonly all: GatekeeperProcess[] = [];
  readonly restarts: number[] = [];
  readonly exits: Array<{
    at: number;
    code: number | null;
    signal: NodeJS.Signals | null;
    log: string;
  }> = [];
  private stopping = false;

  constructor(private readonly options: GatekeeperOptions) {
    this.start();
  }

  get current(): GatekeeperProcess {
    return this.all[this.all.length - 1] as GatekeeperProcess;
  }

  private start(): void {
    const g = new GatekeeperProcess(this.options);
    this.all.push(g);
    void g.exited.then(({ code, signal }) => {
      if (this.stopping) return;
      this.exits.push({ at: Date.now(), code, signal, log: g.logFile });
      this.restarts.push(Date.now());
      this.start();
    });
  }

  logLines(): Array<Record<string, unknown>> {
    return this.all.flatMap((g) => g.logLines());
  }

  async stop(graceMs?: number): Promise<void> {
    this.stopping = true;
    await Promise.all(this.all.map((g) => g.stop(graceMs)));
  }
}
