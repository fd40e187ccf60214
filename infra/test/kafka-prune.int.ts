/** stack.sh prune-topics: deletes the topics that nothing has written for a while, and nothing else. */
import { utimesSync, readdirSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { createTopic, deleteTopic, produceAcked, withAdmin } from './support/kafka';
import { KAFKA_NODES, REPO_ROOT, ensureStackUp, stack, uniqueName } from './support/stack';

/** Sets every file of the topic's partition directories, on every node, back by `hours`. */
function backdate(topic: string, hours: number): number {
  const when = new Date(Date.now() - hours * 3_600_000);
  let files = 0;
  for (const node of KAFKA_NODES) {
    const dir = path.join(REPO_ROOT, '.run/kafka', String(node), 'data', `${topic}-0`);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) {
      utimesSync(path.join(dir, f), when, when);
      files += 1;
    }
  }
  return files;
}

const topicNames = (): Promise<string[]> => withAdmin((admin) => admin.listTopics());

describe('stack.sh prune-topics', () => {
  // One tag for both topics, so that --match confines this test to them on a shared stack.
  const tag = uniqueName('infra-prune');
  const idle = `${tag}-idle`;
  const busy = `${tag}-busy`;

  beforeAll(async () => {
    await ensureStackUp();
    await createTopic(idle);
    await createTopic(busy);
    await produceAcked(idle, ['old']);
    await produceAcked(busy, ['new']);
  });

  afterAll(async () => {
    for (const t of [idle, busy]) await deleteTopic(t).catch(() => undefined);
  });

  it('rejects a bad flag before touching anything', async () => {
    await expect(stack('prune-topics', '--idle-minutes', 'an-hour')).rejects.toThrow(
      "--idle-minutes expects a whole number of minutes, got 'an-hour'",
    );
    await expect(stack('prune-topics', '--match', '(')).rejects.toThrow(
      "--match '(' is not a valid extended regular expression",
    );
    await expect(stack('prune-topics', '--everything')).rejects.toThrow(
      "unknown argument '--everything'",
    );
  });

  it('lists, then deletes, only the topic idle past the limit', async () => {
    // Replicated to all three nodes: three partition directories of several files each.
    expect(backdate(idle, 2)).toBeGreaterThanOrEqual(3);
    const match = ['--match', `^${tag}-`];

    const listed = await stack('prune-topics', '--idle-minutes', '60', ...match, '--dry-run');
    expect(listed).toContain(`would delete 1 topic(s)`);
    expect(listed).toMatch(new RegExp(`${idle} \\(1[12][0-9] min\\)`));
    expect(listed).not.toContain(busy);
    expect(await topicNames()).toContain(idle);

    const pruned = await stack('prune-topics', '--idle-minutes', '60', ...match);
    expect(pruned).toContain('prune-topics: deleted 1');
    const after = await topicNames();
    expect(after).not.toContain(idle);
    expect(after).toContain(busy);

    // With no age limit every other topic is a candidate; the stack's own and Kafka's internal ones never are.
    const everything = await stack('prune-topics', '--idle-minutes', '0', '--dry-run');
    expect(everything).toContain(`  ${busy} (`);
    for (const own of [
      'clickstream.raw',
      'events.valid',
      'events.clean',
      'agg.sessions',
      '__consumer_offsets',
    ])
      expect(everything).not.toContain(`  ${own} (`);

    expect(await stack('prune-topics', '--idle-minutes', '60', ...match)).toContain(
      `no topic idle for 60 min matching '^${tag}-'`,
    );
  });
});
