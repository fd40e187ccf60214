/**
 * Benchmark: how long the gatekeeper stops committing when the broker coordinating its transactions is SIGKILLed,
 * with a backlog so it always has work. Runs 3 times; writes results/bench/gatekeeper-broker-kill.json.
 */

import { committedLag } from '@clickstream/kafka-tx';
import { stackNode, transactionCoordinator, waitForHealthyKafka } from '../test/cluster';
import {
  SupervisedGatekeeper,
  clusterOptions,
  createRunTopics,
  dropRunTopics,
  freshTopics,
  sleep,
} from '../test/harness';
import { fillRaw, flag, writeResult } from './common';

/** Extra gatekeeper flags for this benchmark (e.g. shorter Kafka timeouts), space-separated. */
const GATEKEEPER_ARGS = (process.env.BENCH_GATEKEEPER_ARGS ?? '')
  .split(' ')
  .filter((a) => a !== '');

interface Commit {
  at: number;
  ms: number;
  records: number;
}

function commits(g: SupervisedGatekeeper): Commit[] {
  // Commit times come from the gatekeeper's own debug log lines (pino time = when the commit returned).
  return g
    .logLines()
    .filter((l) => l.msg === 'transaction committed')
    .map((l) => ({ at: Number(l.time), ms: Number(l.ms), records: Number(l.records) }));
}

async function oneRun(run: number, backlog: number, observeMs: number): Promise<object> {
  const topics = freshTopics(`bench-bk${run}`);
  await createRunTopics(topics);
  let killed: number | null = null;
  let g: SupervisedGatekeeper | undefined;
  try {
    // Fill first: the backlog must outlast the kill, so the gatekeeper is never idle while it is measured.
    await fillRaw(topics.raw, `bench-${topics.group}`, backlog, 100);
    g = new SupervisedGatekeeper({
      topics,
      instanceId: `bench-bk${run}`,
      extraArgs: ['--log-level', 'debug', ...GATEKEEPER_ARGS],
    });
    // Let it reach a steady rhythm before the kill.
    while (commits(g).length < 20) await sleep(200);
    await sleep(2000);
    const healthyBeforeKill = await waitForHealthyKafka();
    const coordinator = await transactionCoordinator(`gatekeeper-bench-bk${run}`);
    const node = coordinator ?? 1;
    const killAt = Date.now();
    await stackNode('kill-node', node);
    killed = node;
    // A fixed window: a commit just after the kill (one already under way) says nothing about recovery.
    while (Date.now() - killAt < observeMs) await sleep(500);
    const observedUntil = Date.now();
    const lagAfter = await committedLag(
      clusterOptions('bench-lag'),
      topics.group,
      topics.raw,
    ).catch(() => -1);
    await stackNode('restart-node', node);
    killed = null;

    const after = commits(g).filter((c) => c.at > killAt);
    let longestGapMs = 0;
    let previous = killAt;
    for (const c of after) {
      longestGapMs = Math.max(longestGapMs, c.at - previous);
      previous = c.at;
    }
    // Still stalled when the observation ended, with work waiting: that open gap counts too.
    if (lagAfter > 0) longestGapMs = Math.max(longestGapMs, observedUntil - previous);
    const begunAfter = after.find((c) => c.at - c.ms >= killAt);
    const before = commits(g).filter((c) => c.at <= killAt && c.at > killAt - 5000);
    const result = {
      run,
      killedNode: node,
      coordinatorFound: coordinator !== null,
      allBrokersHealthyBeforeKill: healthyBeforeKill,
      allBrokersHealthyAfterRestart: await waitForHealthyKafka(1),
      firstCommitAfterKillMs: after[0] ? after[0].at - killAt : null,
      firstCommitBegunAfterKillMs: begunAfter ? begunAfter.at - killAt : null,
      longestCommitGapMs: longestGapMs,
      commitsPerSecBefore: before.length / 5,
      commitsAfterKill: after.length,
      backlogLeftAfterObservation: lagAfter,
      aborts: await g.current.metric('gatekeeper_transactions_aborted_total').catch(() => NaN),
      loopRestarts: g.logLines().filter((l) => l.msg === 'transactional loop failed; restarting it')
        .length,
      processRestarts: g.exits.map((e) => ({
        msAfterKill: e.at - killAt,
        code: e.code,
        signal: e.signal,
        log: e.log,
      })),
      valid:
        lagAfter > 0
          ? 'backlog never ran out: the gap is the gatekeeper stall'
          : 'backlog ran out: the gap may include idle time',
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    if (killed !== null) await stackNode('restart-node', killed);
    await g?.stop();
    // Dropping is hygiene; a timeout here (another test's broker kill) must not lose the measurement.
    await dropRunTopics(topics).catch((e: unknown) =>
      console.error(`could not drop ${topics.raw}: ${String(e)}`),
    );
  }
}

async function main(): Promise<void> {
  const runs = flag('--runs', 3);
  const backlog = flag('--backlog', 300_000);
  const observeMs = flag('--observe-ms', 45_000);
  const results: object[] = [];
  for (let run = 1; run <= runs; run++) {
    results.push(await oneRun(run, backlog, observeMs));
    // Let the restarted node catch up and rejoin every ISR before the next kill.
    await sleep(15_000);
  }
  const gaps = results.map((r) => (r as { longestCommitGapMs: number }).longestCommitGapMs);
  const summary = {
    command: 'npx nx run gatekeeper:bench-broker-kill (bench/broker-kill.ts)',
    backlog,
    observeMs,
    gatekeeperArgs: GATEKEEPER_ARGS,
    definition:
      'stall = longest gap between consecutive committed transactions from the SIGKILL of the transaction coordinator on, with a backlog so the gatekeeper is never idle',
    longestCommitGapMs: { min: Math.min(...gaps), max: Math.max(...gaps), runs: gaps },
    runs: results,
  };
  console.log(
    `wrote ${writeResult(GATEKEEPER_ARGS.length === 0 ? 'gatekeeper-broker-kill' : 'gatekeeper-broker-kill-tuned', summary)}`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
