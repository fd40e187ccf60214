import { checkExactlyOnce } from './check';
import { CounterTimeline, stackNode, transactionCoordinator } from './cluster';
import {
  SupervisedGatekeeper,
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

describe('gatekeeper binary when a broker dies', () => {
  let topics: RunTopics;
  let gatekeeper: SupervisedGatekeeper | undefined;
  let killed: number | null = null;
  let timeline: CounterTimeline | undefined;

  beforeAll(async () => {
    topics = freshTopics('broker');
    await createRunTopics(topics);
  });

  afterAll(async () => {
    // A killed broker is always brought back, whatever happened in the test.
    if (killed !== null) await stackNode('restart-node', killed);
    await timeline?.stop();
    if (gatekeeper) await gatekeeper.stop(5000);
    await dropRunTopics(topics);
  });

  it('keeps valid + dlq an exact partition of raw when the transaction coordinator is SIGKILLed', async () => {
    const fates = new Map<number, Fate>();
    // Supervised: if a librdkafka call hangs past the watchdog (exit 4), it is restarted like a service would be.
    gatekeeper = new SupervisedGatekeeper({
      topics,
      instanceId: 'bk',
      extraArgs: ['--log-level', 'debug'],
    });
    const g = gatekeeper;
    // Counts commits across restarts: each process's counter starts again at 0.
    let base = 0;
    let lastSeen = 0;
    let lastProcess = g.current;
    const commits = new CounterTimeline(async () => {
      if (g.current !== lastProcess) [base, lastProcess] = [base + lastSeen, g.current];
      lastSeen = await g.current.metric('gatekeeper_transactions_committed_total');
      return base + lastSeen;
    });
    timeline = commits;
    let loadDone = false;
    const load = (async () => {
      for (let w = 0; w < 40; w++) {
        const seeded = seedRecords(topics.raw, `run-${topics.group}`, w * 500, 500, 10);
        for (const [seq, fate] of seeded.fates) fates.set(seq, fate);
        await produce(seeded.records);
        await sleep(500);
      }
      loadDone = true;
    })();

    await sleep(6000);
    const coordinator = (await transactionCoordinator('gatekeeper-bk')) ?? 1;
    const killAt = Date.now();
    await stackNode('kill-node', coordinator);
    killed = coordinator;
    await load;
    expect(loadDone).toBe(true);
    await waitForDrain(topics, 240_000);
    const stall = commits.stallAfter(killAt, Date.now());
    await commits.stop();
    console.log(
      `logs: ${g.all.map((p) => p.logFile).join(' ')}; unrequested exits (restarted): ${JSON.stringify(g.exits.map((e) => ({ ...e, at: e.at - killAt })))}`,
    );
    console.log(
      `killed node ${coordinator} (transaction coordinator of gatekeeper-bk): first commit after ${stall.firstCommitMs} ms, longest commit gap ${stall.longestGapMs} ms`,
    );
    await stackNode('restart-node', coordinator);
    killed = null;

    const contents = await readRun(topics);
    const report = checkExactlyOnce(fates, contents.raw, contents.valid, contents.dlq);
    expect(report.problems).toEqual([]);
    expect(report.counts).toEqual({ raw: 20_000, valid: 18_000, dlq: 2_000 });
  });
});
