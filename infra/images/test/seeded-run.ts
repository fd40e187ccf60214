/**
 * What both container suites (containers.int.ts, pipeline-containers.int.ts) share: whether podman
 * can run here, the three private topics of a test, and a seeded run with every fault kind through
 * them, reconciled exact at raw, valid, dlq and the two ClickHouse tables.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import pino from 'pino';
import {
  FAULT_KINDS,
  ReconciliationReportSchema,
  type ReconciliationReport,
} from '@clickstream/contracts';
import { createTopics, type KafkaClientOptions } from '@clickstream/kafka-tx';
import { localBootstrap } from '@clickstream/test-support';

export interface RunTopics {
  raw: string;
  valid: string;
  dlq: string;
}

/** The layers a run through the containerised gatekeeper and loader reaches. */
export const EVENT_LAYERS = [
  'clickstream.raw',
  'events.valid',
  'events.dlq',
  'clickhouse.valid',
  'clickhouse.dlq',
];

/** True when podman and runc are installed; otherwise warns that `suite` is skipped. */
export function podmanAvailable(suite: string): boolean {
  const ok =
    spawnSync('sh', ['-c', 'command -v podman && command -v runc'], { encoding: 'utf8' }).status ===
    0;
  if (!ok) {
    console.warn(
      `SKIPPED ${suite}: podman/runc are not installed (tools/setup installs podman, buildah, debootstrap and runc)`,
    );
  }
  return ok;
}

export function runTopics(prefix: string): RunTopics {
  return { raw: `${prefix}.raw`, valid: `${prefix}.valid`, dlq: `${prefix}.dlq` };
}

export function adminOptions(id: string): KafkaClientOptions {
  return {
    bootstrap: localBootstrap(),
    clientId: `${id}-admin`,
    logger: pino({ level: 'silent' }),
  };
}

/** Three partitions each; raw stamps the broker's time (the lateness rule's ingest time). */
export async function createRunTopics(kafka: KafkaClientOptions, topics: RunTopics): Promise<void> {
  await createTopics(kafka, [
    { topic: topics.raw, partitions: 3, config: { 'message.timestamp.type': 'LogAppendTime' } },
    { topic: topics.valid, partitions: 3 },
    { topic: topics.dlq, partitions: 3 },
  ]);
}

/** A seeded generator run of `count` events into `topic`: every send acked, every fault kind injected. */
export function sendSeededRun(
  root: string,
  o: { runId: string; topic: string; count: number; seed: string },
): { run_id: string } {
  const gen = spawnSync(
    'node',
    [
      'apps/generator/dist/main.js',
      '--seed',
      o.seed,
      '--run-id',
      o.runId,
      '--topic',
      o.topic,
      '--rate',
      '1000',
      '--count',
      String(o.count),
      '--max-dup-delay',
      '5s',
    ],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  expect(gen.status).toBe(0);
  const summary = JSON.parse(gen.stdout) as {
    run_id: string;
    acked: number;
    by_fault: Record<string, number>;
  };
  expect(summary.acked).toBe(o.count);
  for (const kind of FAULT_KINDS) expect(summary.by_fault[kind] ?? 0).toBeGreaterThan(0);
  return summary;
}

/** tools/reconcile-wait over EVENT_LAYERS of the test's topics (up to 180 s); every one must be exact. */
export function expectExactAtEventLayers(
  root: string,
  runId: string,
  topics: RunTopics,
): ReconciliationReport {
  const runDir = path.join('results', 'runs', runId);
  const wait = spawnSync(
    'bash',
    [
      'tools/reconcile-wait',
      runDir,
      '180',
      '--layers',
      EVENT_LAYERS.join(','),
      '--topic-raw',
      topics.raw,
      '--topic-valid',
      topics.valid,
      '--topic-dlq',
      topics.dlq,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  process.stdout.write(wait.stdout);
  const report = ReconciliationReportSchema.parse(
    JSON.parse(readFileSync(path.join(root, runDir, 'reconcile.json'), 'utf8')),
  );
  expect(Object.fromEntries(report.layers.map((l) => [l.layer, l.verdict]))).toEqual(
    Object.fromEntries(EVENT_LAYERS.map((l) => [l, 'exact'])),
  );
  expect(wait.status).toBe(0);
  return report;
}
