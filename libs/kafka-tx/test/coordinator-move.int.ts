import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { committedLag, deleteTopics } from '../src';
import { killAllChildren, startFixture } from './child';
import {
  BOOTSTRAP,
  REPO_ROOT,
  clientOptions,
  kafkaClasspath,
  kafkaToolArgs,
  seed,
  seededPair,
  sleep,
  uniqueName,
  waitFor,
} from './helpers';
import {
  BOUND_MS,
  expectSharedExactCopy,
  offsetsPartition,
  startMember,
  type Member,
} from './members';

// What the brokers logged when two gatekeepers started on a new group at the same instant and one
// sat with all partitions for four minutes (docs/GATEKEEPER.md, "Open problem"): 1.9 s after the
// two joined, while the second member's join waited for the first to rejoin, the controller's
// periodic preferred-leader election moved the group's __consumer_offsets partition to another
// broker, and neither member was heard from by the new coordinator again. This spec moves the
// coordinator the same way (a preferred election on that one partition) at such moments: in
// round 1 the two members start in the same tick and the move follows the first applied
// assignment; in the others b starts once a holds every partition, so that b's join waits for a
// to rejoin (as it did in the rehearsal), and the move lands 0.5, 1.5 or 2.5 s into that wait.

/** [how b starts, ms from that start (or from the first assignment) to the move] */
const ROUNDS: Array<[start: 'same tick' | 'after a', moveMs: number]> = [
  ['same tick', 0],
  ['after a', 500],
  ['after a', 1500],
  ['after a', 2500],
];
const PARTITIONS = 6;
const N = 2000;
/** __consumer_offsets partitions of the pipeline's own long-lived groups (gatekeeper, clickstream-loader): never moved by this spec. */
const PIPELINE_OFFSETS_PARTITIONS = new Set([
  offsetsPartition('gatekeeper', 12),
  offsetsPartition('clickstream-loader', 12),
]);

/** The JVM helper (test/fixtures/MoveGroupCoordinator.java), driven line by line. */
class CoordinatorMover {
  private out = '';
  private read = 0;
  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (b: Buffer) => (this.out += b.toString('utf8')));
  }

  static start(classes: string, group: string): CoordinatorMover {
    const child = spawn(
      'java',
      kafkaToolArgs('MoveGroupCoordinator', [BOOTSTRAP, group], {
        classes,
        jvm: [
          '-Xmx64m',
          '-XX:+UseSerialGC',
          '-XX:TieredStopAtLevel=1',
          `-Dlog4j2.configurationFile=${path.join(REPO_ROOT, 'infra/local/kafka/log4j2.properties')}`,
          // Where that configuration writes the admin client's log (else a literal "${sys:...}" dir in the cwd).
          `-Dkafka.logs.dir=${classes}`,
        ],
      }),
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stderr.on('data', (b: Buffer) => process.stderr.write(b));
    child.stdin.on('error', () => undefined); // a helper that died is reported by next()
    return new CoordinatorMover(child);
  }

  /** The next JSON line the helper prints (each command answers with one), waiting for it. */
  async next(timeoutMs = 60_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const pieces = this.out.split('\n');
      pieces.pop(); // a line still being written, or ''
      const l = pieces.filter((x) => x.startsWith('{'))[this.read];
      if (l !== undefined) {
        this.read++;
        return JSON.parse(l) as Record<string, unknown>;
      }
      if (this.child.exitCode !== null) throw new Error(`MoveGroupCoordinator exited: ${this.out}`);
      if (Date.now() > deadline) throw new Error(`MoveGroupCoordinator: no answer in time`);
      await sleep(20);
    }
  }

  send(command: string): void {
    this.child.stdin.write(`${command}\n`);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
}

const classes = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-tx-mover-'));

beforeAll(async () => {
  await promisify(execFile)(
    'javac',
    [
      '-J-Xmx128m',
      '-nowarn',
      '-cp',
      kafkaClasspath(),
      '-d',
      classes,
      path.join(__dirname, 'fixtures', 'MoveGroupCoordinator.java'),
    ],
    { timeout: 120_000 },
  );
});

afterAll(() => fs.rmSync(classes, { recursive: true, force: true }));

/** A group name whose __consumer_offsets partition is none of the pipeline's own groups'. */
function testGroup(prefix: string): string {
  let group = uniqueName(prefix);
  while (PIPELINE_OFFSETS_PARTITIONS.has(offsetsPartition(group, 12))) group = uniqueName(prefix);
  return group;
}

describe('two members starting on a new group while its coordinator moves', () => {
  const o = clientOptions('coordinator-move');
  const topics: string[] = [];
  const members: Member[] = [];
  const movers: CoordinatorMover[] = [];

  afterAll(async () => {
    for (const m of members) m.stop.abort();
    await Promise.all(members.map((m) => m.done.catch(() => undefined)));
    for (const mv of movers) await mv.close();
    await deleteTopics(o, topics);
  });

  it.each(ROUNDS)(
    'b starts %s, the coordinator moves %i ms later: both members get partitions and the copy is exact',
    async (how, delayMs) => {
      const group = testGroup('cm-group');
      const { input, output } = await seededPair(o, 'cm', PARTITIONS, N, topics);

      const mover = CoordinatorMover.start(classes, group);
      movers.push(mover);
      try {
        await round(mover, group, input, output, how, delayMs);
      } finally {
        // The partition gets its original replica order and preferred leader back (another move,
        // like the controller's own periodic one) before a later round could pick it again.
        mover.send('restore');
        await mover.next().catch((e: unknown) => o.logger.warn({ err: String(e) }, 'restore'));
        await mover.close();
      }
    },
  );

  async function round(
    mover: CoordinatorMover,
    group: string,
    input: string,
    output: string,
    how: 'same tick' | 'after a',
    delayMs: number,
  ): Promise<void> {
    const placed = await mover.next();
    mover.send('prepare');
    const prepared = await mover.next();
    expect(prepared.prepared).toBe(true);

    const t0 = Date.now();
    const a = startMember(o, 'a', group, input, output, t0);
    let b = how === 'same tick' ? startMember(o, 'b', group, input, output, t0) : undefined;
    members.push(a, ...(b ? [b] : []));
    const deadline = Date.now() + BOUND_MS;
    while (a.assigned === 0 && (b?.assigned ?? 0) === 0) {
      if (Date.now() > deadline) throw new Error('no member was assigned before the move');
      await sleep(5);
    }
    if (b === undefined) {
      b = startMember(o, 'b', group, input, output, t0);
      members.push(b);
    }
    await sleep(delayMs);
    mover.send('move');
    const moved = await mover.next();
    o.logger.warn(
      { group, placed, prepared, moved, atMs: Date.now() - t0, a: a.rebalances, b: b.rebalances },
      'group coordinator moved (informational)',
    );
    expect(moved.moved).toBe(true);

    await expectSharedExactCopy(
      o,
      { group, input, output, partitions: PARTITIONS, n: N },
      a,
      b,
      'both members assigned after the move, all partitions covered, everything committed',
    );
  }
});

// The gatekeeper's and the loader's lag gauges read the lag every few seconds. The first
// committedLag read the committed offsets with the admin client's ListConsumerGroupOffsets, and a
// gatekeeper died of SIGSEGV in librdkafka when that call met a coordinator move
// (docs/MEASUREMENTS.md). Four pollers read it back to back while the group's coordinator moves
// twenty times, two over one lagReader kept open (as the gauges do) and two with committedLag's
// clients of their own per call; each must stay up and answer the exact lag afterwards. With that
// first version a poller died of SIGSEGV in each of three tries (2026-12-06); with the consumer's
// read none did.
describe('the lag read while the group coordinator moves', () => {
  const o = clientOptions('coordinator-move-lag');
  const topics: string[] = [];

  afterAll(async () => {
    await killAllChildren();
    await deleteTopics(o, topics);
  });

  it('keeps every polling process alive and answers the exact lag after the moves', async () => {
    const group = testGroup('cm-lag-group');
    const { input, output } = await seededPair(o, 'cm-lag', PARTITIONS, N, topics);
    // Committed offsets to read: a member copies every record, then more arrive uncopied.
    const copier = startMember(o, 'lag', group, input, output, Date.now());
    await waitFor(
      'the copy to commit every record',
      async () => (await committedLag(o, group, input)) === 0,
      BOUND_MS,
      200,
    );
    copier.stop.abort();
    expect(await copier.done).toEqual({ reason: 'stopped' });
    const MORE = 300;
    expect(await seed(o, input, N, MORE)).toBe(MORE);

    const pollers = ['reader', 'reader', 'oneshot', 'oneshot'].map((mode) =>
      startFixture('lag-poller.js', [BOOTSTRAP, group, input, mode]),
    );
    const answeredAgain = (): Promise<void[]> => {
      const seen = pollers.map((p) => p.jsonLines().length);
      return Promise.all(
        pollers.map((p, i) =>
          p.waitUntil('two more answers', (ls) => ls.length >= (seen[i] ?? 0) + 2, BOUND_MS),
        ),
      );
    };
    await answeredAgain();
    const mover = CoordinatorMover.start(classes, group);
    try {
      await mover.next(); // where the coordinator is
      for (let round = 0; round < 10; round++) {
        mover.send('prepare');
        expect((await mover.next()).prepared).toBe(true);
        mover.send('move');
        expect((await mover.next()).moved).toBe(true);
        await answeredAgain();
        mover.send('restore');
        expect((await mover.next()).restored).toBe(true);
        await answeredAgain();
      }
    } finally {
      await mover.close();
    }

    for (const p of pollers) {
      const before = p.jsonLines().length;
      await p.waitUntil(
        'three exact answers after the moves',
        (ls) => ls.slice(before).filter((l) => l.lag === MORE).length >= 3,
        BOUND_MS,
      );
    }
    const failed = pollers.flatMap((p) => p.jsonLines().filter((l) => l.err !== undefined));
    o.logger.warn(
      { calls: pollers.map((p) => p.jsonLines().length), failed: failed.length, first: failed[0] },
      'lag reads during the moves (informational)',
    );
    expect(await Promise.all(pollers.map((p) => p.stop('SIGTERM')))).toEqual(
      pollers.map(() => ({ code: 0, signal: null })),
    );
  });
});
