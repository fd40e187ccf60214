/** An in-memory partitioned log with a transactional producer and a group consumer, for unit specs of the engines. */
import type {
  Clock,
  LoopConsumer,
  TopicPartition,
  TopicPartitionOffset,
  TxProducer,
} from '../src/ports';
import type { InRecord, Logger, OutRecord } from '../src/types';

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Time that only moves when someone sleeps or consumes: specs run instantly and deterministically. */
export class FakeClock implements Clock {
  t = 0;
  now(): number {
    return this.t;
  }
  sleep(ms: number): Promise<void> {
    this.t += ms;
    return Promise.resolve();
  }
}

export type Op = 'init' | 'begin' | 'produce' | 'sendOffsets' | 'commit' | 'abort';

export interface FakeError {
  code: number;
  message: string;
  isFatal?: boolean;
  isRetriable?: boolean;
  isTxnRequiresAbort?: boolean;
}

export const ERRORS = {
  retriable: { code: -185, message: 'Local: Timed out', isRetriable: true } as FakeError,
  abortable: {
    code: 22,
    message: 'Broker: Specified group generation id is not valid',
    isTxnRequiresAbort: true,
  } as FakeError,
  fenced: {
    code: -144,
    message: 'Local: This instance has been fenced by a newer instance',
    isFatal: true,
  } as FakeError,
  fatal: { code: -150, message: 'Local: Fatal error: something else', isFatal: true } as FakeError,
};

/** The shared "cluster": input partitions, committed group offsets, and the committed output log. */
export class FakeCluster {
  readonly input = new Map<number, InRecord[]>();
  readonly committed = new Map<number, number>();
  readonly output: OutRecord[] = [];
  /** Per operation, errors to throw on the next calls, in order. */
  readonly failures = new Map<Op, FakeError[]>();
  epoch = 0;

  constructor(
    partitions: number,
    perPartition: number,
    readonly topic = 'in',
  ) {
    for (let p = 0; p < partitions; p++) {
      this.input.set(
        p,
        Array.from({ length: perPartition }, (_, i) => ({
          topic,
          partition: p,
          offset: i,
          key: null,
          value: Buffer.from(`${p}:${i}`),
          headers: {},
          timestamp: 0,
        })),
      );
    }
  }

  fail(op: Op, e: FakeError, times = 1): void {
    const l = this.failures.get(op) ?? [];
    for (let i = 0; i < times; i++) l.push(e);
    this.failures.set(op, l);
  }

  maybeFail(op: Op): void {
    const e = this.failures.get(op)?.shift();
    if (e) throw Object.assign(new Error(e.message), e);
  }

  get total(): number {
    return [...this.input.values()].reduce((n, l) => n + l.length, 0);
  }

  allCommitted(): boolean {
    return [...this.input.entries()].every(([p, l]) => (this.committed.get(p) ?? 0) >= l.length);
  }
}

export class FakeConsumer implements LoopConsumer {
  readonly positions = new Map<number, number>();
  readonly queue: { kind: 'assign' | 'revoke'; partitions: number[] }[] = [];
  assigned: number[] = [];
  commits: TopicPartitionOffset[][] = [];
  closed = false;
  /** Called before every consume, to inject rebalances or stops at chosen moments. */
  beforeConsume: (c: FakeConsumer) => void = () => undefined;

  constructor(
    readonly cluster: FakeCluster,
    private readonly clock: FakeClock,
  ) {
    this.queue.push({ kind: 'assign', partitions: [...cluster.input.keys()] });
  }

  consume(max: number, timeoutMs: number): Promise<InRecord[]> {
    this.beforeConsume(this);
    const out: InRecord[] = [];
    for (const p of this.assigned) {
      const log = this.cluster.input.get(p) ?? [];
      let pos = this.positions.get(p) ?? 0;
      while (out.length < max && pos < log.length) out.push(log[pos++] as InRecord);
      this.positions.set(p, pos);
      if (out.length >= max) break;
    }
    this.clock.t += out.length === 0 ? timeoutMs : 1;
    return Promise.resolve(out);
  }

  rebalancePending(): boolean {
    return this.queue.length > 0;
  }

  applyRebalances(): void {
    for (let ev = this.queue.shift(); ev; ev = this.queue.shift()) {
      if (ev.kind === 'revoke') {
        this.assigned = [];
        this.positions.clear();
      } else {
        this.assigned = ev.partitions;
        // Like librdkafka: a new assignment starts at the committed offsets.
        for (const p of ev.partitions) this.positions.set(p, this.cluster.committed.get(p) ?? 0);
      }
    }
  }

  seek(positions: TopicPartitionOffset[]): Promise<void> {
    for (const p of positions) this.positions.set(p.partition, p.offset);
    return Promise.resolve();
  }

  committed(partitions: TopicPartition[]): Promise<TopicPartitionOffset[]> {
    return Promise.resolve(
      partitions.map((p) => ({ ...p, offset: this.cluster.committed.get(p.partition) ?? -1001 })),
    );
  }

  commitAsync(offsets: TopicPartitionOffset[]): void {
    this.commits.push(offsets);
    for (const o of offsets) this.cluster.committed.set(o.partition, o.offset);
  }

  commitSync(offsets: TopicPartitionOffset[]): Promise<void> {
    this.commitAsync(offsets);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

export class FakeTxProducer implements TxProducer {
  private open: { outputs: OutRecord[]; offsets: TopicPartitionOffset[] } | null = null;
  private epoch = -1;
  readonly calls: Op[] = [];

  constructor(private readonly cluster: FakeCluster) {}

  private step(op: Op): void {
    this.calls.push(op);
    if (op !== 'init' && this.epoch !== this.cluster.epoch) {
      throw Object.assign(new Error(ERRORS.fenced.message), ERRORS.fenced);
    }
    this.cluster.maybeFail(op);
  }

  init(): Promise<void> {
    this.step('init');
    this.epoch = ++this.cluster.epoch;
    return Promise.resolve();
  }
  begin(): Promise<void> {
    this.step('begin');
    if (this.open) throw new Error('begin with a transaction open');
    this.open = { outputs: [], offsets: [] };
    return Promise.resolve();
  }
  produce(records: OutRecord[]): Promise<void> {
    this.step('produce');
    if (!this.open) throw new Error('produce outside a transaction');
    this.open.outputs.push(...records);
    return Promise.resolve();
  }
  sendOffsets(offsets: TopicPartitionOffset[]): Promise<void> {
    this.step('sendOffsets');
    if (!this.open) throw new Error('sendOffsets outside a transaction');
    this.open.offsets.push(...offsets);
    return Promise.resolve();
  }
  commit(): Promise<void> {
    this.step('commit');
    if (!this.open) throw new Error('commit outside a transaction');
    this.cluster.output.push(...this.open.outputs);
    for (const o of this.open.offsets) this.cluster.committed.set(o.partition, o.offset);
    this.open = null;
    return Promise.resolve();
  }
  abort(): Promise<void> {
    this.step('abort');
    this.open = null;
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
