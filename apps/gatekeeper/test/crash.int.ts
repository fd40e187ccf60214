import { checkExactlyOnce } from './check';
import { GatekeeperProcess, createRunTopics, dropRunTopics, freshTopics, produce, readRun, seedRecords, sleep, waitForDrain, type Fate, type RunTopics } from './harness';

/** Produces `waves` waves of `perWave` sends, `pauseMs` apart, so the gatekeepers always have work while they are being killed. */
async function steadyLoad(topics: RunTopics, fates: Map<number, Fate>, waves: number, perWave: number, pauseMs: number): Promise<void> {
  for (let w = 0; w < waves; w++) {
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
    const instances = new Map<string, GatekeeperProcess>([
      ['a', start(topics, 'a')],
      ['b', start(topics, 'b')],
    ]);
    const load = steadyLoad(topics, fates, 10, 2000, 800);

    const kills: string[] = [];
    for (let k = 0; k < 6; k++) {
      const delay = 1000 + Math.floor(Math.random() * 2500);
      await sleep(delay);
      const id = Math.random() < 0.5 ? 'a' : 'b';
      const victim = instances.get(id) as GatekeeperProcess;
      const committedBefore = await victim.metric('gatekeeper_transactions_committed_total').catch(() => NaN);
      victim.kill('SIGKILL');
      await victim.exited;
      kills.push(`${id} after ${delay} ms (${committedBefore} commits)`);
      instances.set(id, start(topics, id));
    }
    await load;
    await waitForDrain(topics, 240_000);
    console.log(`SIGKILLs: ${kills.join('; ')}`);

    const contents = await readRun(topics);
    const report = checkExactlyOnce(fates, contents.raw, contents.valid, contents.dlq);
    expect(report.problems).toEqual([]);
    expect(report.counts).toEqual({ raw: 20_000, valid: 18_000, dlq: 2_000 });
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
