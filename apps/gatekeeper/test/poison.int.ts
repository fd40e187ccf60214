import { REJECT_REASONS } from '@clickstream/contracts';
import { checkExactlyOnce } from './check';
import {
  GatekeeperProcess,
  createRunTopics,
  dropRunTopics,
  freshTopics,
  produce,
  readRun,
  seedRecords,
  waitForDrain,
  type RunTopics,
} from './harness';

describe('gatekeeper binary: a seeded run with every kind of poison', () => {
  let topics: RunTopics;
  let gatekeeper: GatekeeperProcess | undefined;

  beforeAll(async () => {
    topics = freshTopics('poison');
    await createRunTopics(topics);
  });

  afterAll(async () => {
    if (gatekeeper) await gatekeeper.stop(5000);
    await dropRunTopics(topics);
  });

  it('splits raw exactly into valid and dlq, with the right reasons, and exits 0 on SIGTERM', async () => {
    // 2,800 sends, one in 10 poison: every reason 20 times.
    const seeded = seedRecords(topics.raw, `run-${topics.group}`, 0, 2800, 10);
    await produce(seeded.records);
    gatekeeper = new GatekeeperProcess({ topics, instanceId: 'solo' });
    await waitForDrain(topics, 120_000);

    const contents = await readRun(topics);
    const report = checkExactlyOnce(seeded.fates, contents.raw, contents.valid, contents.dlq);
    expect(report.problems).toEqual([]);
    expect(report.counts).toEqual({ raw: 2800, valid: 2520, dlq: 280 });

    // The binary's own accounting agrees: committed outcomes only, every reason 20 times.
    expect(await gatekeeper.metric('gatekeeper_records_valid_total')).toBe(2520);
    for (const reason of REJECT_REASONS)
      expect(
        await gatekeeper.metric(`gatekeeper_records_dead_lettered_total{reason="${reason}"}`),
      ).toBe(20);
    const health = await fetch(`http://127.0.0.1:${await gatekeeper.port}/healthz`);
    expect(health.status).toBe(200);

    await expect(gatekeeper.stop()).resolves.toEqual({ code: 0, signal: null });
    gatekeeper = undefined;
  });
});
