import { checkExactlyOnce } from './check';
import {
  GatekeeperProcess,
  createRunTopics,
  dropRunTopics,
  freshTopics,
  produce,
  readRun,
  seedRecords,
  sleep,
  waitForDrain,
  type Fate,
  type RunTopics,
} from './harness';

/** Produces waves of `perWave` sends, `pauseMs` apart (at least `waves`, and on until `until()`), so the gatekeepers always have work while they are being killed. */
async function steadyLoad(
  topics: RunTopics,
  fates: Map<number, Fate>,
  waves: number,
  perWave: number,
  pauseMs: number,
  until: () => boolean = () => true,
): Promise<void> {
  for (let w = 0; w < waves || !until(); w++) {
    const seeded = seedRecords(topics.raw, `run-${topics.group}`, w * perWave, perWave, 10);
    for (const [seq, fate] of seeded.fates) fates.set(seq, fate);
    await produce(seeded.records);
    await sleep(pauseMs);
  }
}

describe('gatekeeper binary under crashes', () => {
  const running = new Set<GatekeeperProcess>();
  const topicsToDrop: RunTopics[] = [];

  afterEach(async () => {
    await Promise.all([...running].map((g) => g.stop(5000)));
    running.clear();
  });

  afterAll(async () => {
    for (const t of topicsToDrop) await dropRunTopics(t);
  });

  function start(topics: RunTopics, instanceId: string): GatekeeperProcess {
    const g = new GatekeeperProcess({ topics, instanceId });
    running.add(g);
    void g.exited.then(() => running.delete(g));
    return g;
  }

  it('keeps valid + dlq an exact partition of raw through six SIGKILLs of two instances', async () => {
    const topics = freshTopics('sigkill');
    topicsToDrop.push(topics);
    await createRunTopics(topics);
    const fates = new Map<number, Fate>();
    let killing = true;
    const load = steadyLoad(topics, fates, 4, 1000, 500, () => !killing);
    // 'b' joins once 'a' has committed: two members joining a new group at the same instant once
    // left one of them with every partition and no commit for four minutes (seen 2026-12-01 in a
    // CI rehearsal, see docs/GATEKEEPER.md); that start-up case is not what this test is about.
    const first = start(topics, 'a');
    const firstDeadline = Date.now() + 120_000;
    while (
      Date.now() < firstDeadline &&
      !((await first.metric('gatekeeper_transactions_committed_total').catch(() => 0)) >= 1)
    )
      await sleep(100);
    const instances = new Map<string, GatekeeperProcess>([
      ['a', first],
      ['b', start(topics, 'b')],
    ]);

    // Each kill lands at a random moment after the victim has committed at least once, so it
    // hits a gatekeeper in the middle of its work (usually inside an open transaction).
    const kills: string[] = [];
    for (let k = 0; k < 6; k++) {
      const id = Math.random() < 0.5 ? 'a' : 'b';
      const victim = instances.get(id) as GatekeeperProcess;
      const waitUntil = Date.now() + 120_000;
      while (
        Date.now() < waitUntil &&
        !((await victim.metric('gatekeeper_transactions_committed_total').catch(() => 0)) >= 1)
      )
        await sleep(100);
      const delay = Math.floor(Math.random() * 1500);
      await sleep(delay);
      const committed = await victim
        .metric('gatekeeper_transactions_committed_total')
        .catch(() => NaN);
      victim.kill('SIGKILL');
      await victim.exited;
      kills.push(`${id} ${delay} ms after its first commit (${committed} commits)`);
      instances.set(id, start(topics, id));
    }
    killing = false;
    await load;
    await waitForDrain(topics, 240_000);
    console.log(`SIGKILLs: ${kills.join('; ')}`);
    expect(kills.every((k) => !k.includes('(0 commits)') && !k.includes('NaN'))).toBe(true);

    const contents = await readRun(topics);
    const report = checkExactlyOnce(fates, contents.raw, contents.valid, contents.dlq);
    expect(report.problems).toEqual([]);
    const poison = [...fates.values()].filter((f) => f !== 'valid').length;
    expect(report.counts).toEqual({ raw: fates.size, valid: fates.size - poison, dlq: poison });
    expect(fates.size).toBeGreaterThanOrEqual(4000);
  });

  it('fences an older instance when a newer one starts with the same instance id, and stays exact', async () => {
    const topics = freshTopics('fence');
    topicsToDrop.push(topics);
    await createRunTopics(topics);
    const fates = new Map<number, Fate>();
    const load = steadyLoad(topics, fates, 8, 1000, 700);
    const older = start(topics, 'same');
    await sleep(3000);
    const newer = start(topics, 'same');

    // The older one must notice at its next transaction and leave with the "fenced" exit code.
    await expect(older.exited).resolves.toEqual({ code: 3, signal: null });
    await load;
    await waitForDrain(topics, 180_000);
    expect(newer.child.exitCode).toBeNull();

    const contents = await readRun(topics);
    const report = checkExactlyOnce(fates, contents.raw, contents.valid, contents.dlq);
    expect(report.problems).toEqual([]);
    expect(report.counts).toEqual({ raw: 8000, valid: 7200, dlq: 800 });
  });
});
