import type { LibrdKafkaError, Message } from '@confluentinc/kafka-javascript';
import { silentLogger } from '../test/fake-kafka';
import { RD_CODES } from './errors';
import { RdLoopConsumer } from './rd-consumer';
import type { TopicPartition } from './ports';

/** librdkafka's KafkaConsumer as far as RdLoopConsumer uses it between open and close: calls recorded, consume answered by `next`. */
class RawStub {
  calls: string[] = [];
  next: { err: Partial<LibrdKafkaError> | null; messages: Message[] } = { err: null, messages: [] };
  assign(p: TopicPartition[]): void {
    this.calls.push(`assign ${p.map((x) => x.partition).join(',')}`);
  }
  unassign(): void {
    this.calls.push('unassign');
  }
  setDefaultConsumeTimeout(): void {}
  consume(_n: number, cb: (err: Partial<LibrdKafkaError> | null, m: Message[]) => void): void {
    cb(this.next.err, this.next.messages);
  }
}

/** The consumer's public loop methods, and its private rebalance callback (librdkafka calls it). */
type Testable = Pick<RdLoopConsumer, 'consume' | 'applyRebalances' | 'rebalancePending'> & {
  onRebalance(err: { code: number }, assignment: TopicPartition[]): void;
};

function consumerOver(raw: RawStub): Testable {
  const Ctor = RdLoopConsumer as unknown as new (
    raw: RawStub,
    log: typeof silentLogger,
    requestTimeoutMs: number,
  ) => Testable;
  return new Ctor(raw, silentLogger, 1000);
}

const parts = (...ps: number[]): TopicPartition[] =>
  ps.map((partition) => ({ topic: 't', partition }));
const NOT_COORDINATOR = { code: RD_CODES.ERR_NOT_COORDINATOR, message: 'Broker: Not coordinator' };

describe('RdLoopConsumer: committed offsets not fetched because the coordinator moved (librdkafka#5586)', () => {
  let now = 0;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  async function assigned(raw: RawStub, ...ps: number[]): Promise<Testable> {
    const c = consumerOver(raw);
    c.onRebalance({ code: RD_CODES.ERR__ASSIGN_PARTITIONS }, parts(...ps));
    c.applyRebalances();
    return c;
  }

  it('applies the current assignment again, between transactions, after a "Not coordinator" consume error', async () => {
    const raw = new RawStub();
    const c = await assigned(raw, 0, 1, 2);
    raw.next = { err: NOT_COORDINATOR, messages: [] };
    expect(await c.consume(10, 1)).toEqual([]);
    // Queued like a rebalance: the loop finishes its batch first.
    expect(raw.calls).toEqual(['assign 0,1,2']);
    expect(c.rebalancePending()).toBe(true);
    c.applyRebalances();
    expect(raw.calls).toEqual(['assign 0,1,2', 'assign 0,1,2']);
    expect(c.rebalancePending()).toBe(false);
  });

  it('does nothing for other consume errors, or with no partitions assigned', async () => {
    const raw = new RawStub();
    const idle = consumerOver(raw);
    raw.next = { err: NOT_COORDINATOR, messages: [] };
    await idle.consume(10, 1);
    expect(idle.rebalancePending()).toBe(false);

    const c = await assigned(raw, 0);
    raw.next = { err: { code: RD_CODES.ERR__TRANSPORT, message: 'down' }, messages: [] };
    await c.consume(10, 1);
    expect(c.rebalancePending()).toBe(false);
  });

  it('gives way to a rebalance that follows the error: nothing after a revocation, the new partitions after an assignment', async () => {
    const raw = new RawStub();
    const c = await assigned(raw, 0, 1);
    raw.next = { err: NOT_COORDINATOR, messages: [] };
    await c.consume(10, 1);
    c.onRebalance({ code: RD_CODES.ERR__REVOKE_PARTITIONS }, parts(0, 1));
    c.applyRebalances();
    expect(raw.calls).toEqual(['assign 0,1', 'unassign']);

    now += 5000;
    c.onRebalance({ code: RD_CODES.ERR__ASSIGN_PARTITIONS }, parts(4, 5));
    c.applyRebalances();
    await c.consume(10, 1);
    c.applyRebalances();
    expect(raw.calls).toEqual(['assign 0,1', 'unassign', 'assign 4,5', 'assign 4,5']);
  });

  it('applies it again at most once a second while the errors go on', async () => {
    const raw = new RawStub();
    const c = await assigned(raw, 3);
    raw.next = { err: NOT_COORDINATOR, messages: [] };
    for (let i = 0; i < 5; i++) {
      await c.consume(10, 1);
      c.applyRebalances();
      now += 300;
    }
    // At 0, 300, 600, 900 and 1200 ms: again at 0 and at 1200.
    expect(raw.calls).toEqual(['assign 3', 'assign 3', 'assign 3']);
  });
});
