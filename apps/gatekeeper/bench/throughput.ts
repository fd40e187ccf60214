/** Benchmark: events/s of one gatekeeper instance draining a pre-filled raw topic, and its CPU per 1,000 events/s. Writes results/bench/gatekeeper-throughput.json. */

import * as os from 'os';
import { committedLag } from '@clickstream/kafka-tx';
import {
  GatekeeperProcess,
  clusterOptions,
  createRunTopics,
  dropRunTopics,
  freshTopics,
  sleep,
} from '../test/harness';
import { cpuSeconds, fillRaw, flag, writeResult } from './common';

async function main(): Promise<void> {
  const records = flag('--records', 200_000);
  const batchRecords = flag('--batch-records', 500);
  const poisonEvery = flag('--poison-every', 100);
  const topics = freshTopics('bench-tput');
  await createRunTopics(topics);
  try {
    const fillStart = Date.now();
    await fillRaw(topics.raw, `bench-${topics.group}`, records, poisonEvery);
    const fillMs = Date.now() - fillStart;
    console.log(`filled ${records} records in ${fillMs} ms`);

    const loadAvgAtStart = os.loadavg()[0];
    const spawnedAt = Date.now();
    const g = new GatekeeperProcess({
      topics,
      instanceId: 'bench',
      extraArgs: ['--batch-records', String(batchRecords)],
    });
    let firstCommitAt: number | null = null;
    let cpuAtFirstCommit = 0;
    let lag = -1;
    const client = clusterOptions('bench-lag');
    const deadline = Date.now() + 30 * 60_000;
    while (Date.now() < deadline) {
      await sleep(250);
      if (
        firstCommitAt === null &&
        (await g.metric('gatekeeper_transactions_committed_total').catch(() => 0)) > 0
      ) {
        firstCommitAt = Date.now();
        cpuAtFirstCommit = cpuSeconds(g.pid);
      }
      lag = await committedLag(client, topics.group, topics.raw).catch(() => -1);
      if (lag === 0) break;
    }
    const drainedAt = Date.now();
    const cpuTotal = cpuSeconds(g.pid);
    const valid = await g.metric('gatekeeper_records_valid_total');
    const metricsText = await g.metrics();
    const dlq = metricsText
      .split('\n')
      .filter((l) => l.startsWith('gatekeeper_records_dead_lettered_total{'))
      .reduce((sum, l) => sum + Number(l.split(' ')[1]), 0);
    const commits = await g.metric('gatekeeper_transactions_committed_total');
    const aborts = await g.metric('gatekeeper_transactions_aborted_total');
    const exit = await g.stop();
    if (lag !== 0 || firstCommitAt === null) throw new Error(`did not drain: lag ${lag}`);

    const processingMs = drainedAt - firstCommitAt;
    const eventsPerSec = records / (processingMs / 1000);
    const cores = (cpuTotal - cpuAtFirstCommit) / (processingMs / 1000);
    const result = {
      command: `npx nx run gatekeeper:bench-throughput -- --records ${records} --batch-records ${batchRecords}`,
      records,
      loadAvgAtStart,
      poisonEvery,
      batchRecords,
      fillMs,
      startupMs: firstCommitAt - spawnedAt,
      processingMs,
      eventsPerSec: Math.round(eventsPerSec),
      cpuSecondsTotal: cpuTotal,
      coresWhileProcessing: Number(cores.toFixed(3)),
      coresPer1kEventsPerSec: Number((cores / (eventsPerSec / 1000)).toFixed(4)),
      committed: { valid, dlq, commits, aborts },
      exit,
      note: 'processing window = first committed transaction to committed lag 0 (polled every 250 ms); the lag poll resolution bounds the error',
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(
      `wrote ${writeResult(batchRecords === 500 ? 'gatekeeper-throughput' : `gatekeeper-throughput-b${batchRecords}`, result)}`,
    );
  } finally {
    await dropRunTopics(topics);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
