/**
 * The collector against the real 3-node cluster: a seeded generator run through HTTP is reconciled
 * exact on the raw layer; a retried JSON request carries the same event ids; a broker SIGKILLed
 * under HTTP load leaves no 2xx for an event that is not in raw (the reconciler proves it: every
 * acked seq exactly once, every failed one at most once), and every 503 is counted on both sides:
 * each failed send was answered 503, none was cut by a connection reset or left to time out.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodeEvent } from '@clickstream/contracts';
import { readTopic } from '@clickstream/kafka-tx';
import { clusterOptions } from '@clickstream/test-support';
import {
  dropTopics,
  failureKinds,
  listenDrops,
  freshRawTopic,
  generateViaHttp,
  metricSamples,
  metricSum,
  reconcileRaw,
  stackNode,
  startCollector,
  type CollectorChild,
} from './harness';

const topics: string[] = [];
const collectors: CollectorChild[] = [];
let resultsDir: string;

beforeAll(() => {
  resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-it-'));
});
afterAll(async () => {
  for (const c of collectors) await c.stop();
  await dropTopics(topics);
  fs.rmSync(resultsDir, { recursive: true, force: true });
});

async function collectorOn(
  flags: string[] = [],
): Promise<{ topic: string; collector: CollectorChild }> {
  const topic = await freshRawTopic();
  topics.push(topic);
  const collector = await startCollector(topic, flags);
  collectors.push(collector);
  return { topic, collector };
}

const verdictOf = (report: Awaited<ReturnType<typeof reconcileRaw>>) =>
  report.layers.map((l) => [l.layer, l.verdict]);

describe('collector against the real stack', () => {
  it('carries a seeded run with every fault kind through HTTP, and the reconciler finds raw exact', async () => {
    const { topic, collector } = await collectorOn();
    const { summary, runDir } = await generateViaHttp(collector.url, resultsDir, [
      '--seed',
      '17',
      '--rate',
      '1000',
      '--count',
      '3000',
      '--max-dup-delay',
      '3s',
    ]);
    expect([summary.sends, summary.acked, summary.failed]).toEqual([3000, 3000, 0]);
    const report = await reconcileRaw(runDir, topic);
    expect(verdictOf(report)).toEqual([['clickstream.raw', 'exact']]);
    expect(await metricSum(collector.metricsUrl, 'collector_events_total', /outcome="acked"/)).toBe(
      3000,
    );
  });

  it('gives a retried JSON request without event ids the same event ids', async () => {
    const { topic, collector } = await collectorOn();
    const now = Date.now();
    const events = [0, 1].map((seq) => ({
      seq,
      run_id: 'it-json',
      event_type: 'page_view',
      event_time: now + seq,
      session_id: 's-1',
      page: '/',
    }));
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await fetch(collector.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(events),
      });
      expect(res.status).toBe(200);
    }
    const records = await readTopic({ ...clusterOptions('collector-it-read'), topic });
    const ids = records.map((r) => {
      const d = decodeEvent(r.value, { ingestTime: r.timestamp });
      return d.ok ? `${d.event.seq}:${d.event.event_id}` : d.reason;
    });
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(2);
  });

  it('never answers 2xx for an event that is not in raw while a broker is SIGKILLed and restarted; 503s are counted', async () => {
    // A short ack timeout, so that the leader failover shows up as 503s rather than slow 200s.
    const { topic, collector } = await collectorOn(['--ack-timeout-ms', '2000']);
    const victim = 2;
    let killed = false;
    try {
      const load = generateViaHttp(collector.url, resultsDir, [
        '--seed',
        '23',
        '--rate',
        '1000',
        '--count',
        '12000',
        '--max-dup-delay',
        '3s',
      ]);
      // Kill only once the load is flowing (the generator's start-up takes seconds on a busy machine).
      const deadline = Date.now() + 60_000;
      while (
        (await metricSum(collector.metricsUrl, 'collector_events_total', /outcome="acked"/)) === 0
      ) {
        if (Date.now() > deadline)
          throw new Error('no event acknowledged within 60 s of the load start');
        await new Promise((r) => setTimeout(r, 200));
      }
      const dropsBefore = listenDrops();
      await stackNode('kill-node', victim);
      killed = true;
      await new Promise((r) => setTimeout(r, 4000));
      // Cleared first: restart-node itself waits for health; calling it twice would kill the node mid-load.
      killed = false;
      await stackNode('restart-node', victim);
      const { summary, runDir } = await load;
      expect(summary.acked + summary.failed).toBe(summary.sends);
      const report = await reconcileRaw(runDir, topic);
      // exact = every acknowledged (2xx) seq once, every failed (5xx / timeout) seq at most once.
      expect(verdictOf(report)).toEqual([['clickstream.raw', 'exact']]);
      const refused = await metricSum(
        collector.metricsUrl,
        'collector_events_total',
        /outcome="(failed|timeout|backpressure)"/,
      );
      const answered503 = await metricSum(
        collector.metricsUrl,
        'collector_requests_total',
        /status="503"/,
      );
      const failures = await failureKinds(runDir);
      const closed = await metricSamples(
        collector.metricsUrl,
        'collector_connections_closed_total',
      );
      const lagMax = await metricSum(collector.metricsUrl, 'nodejs_eventloop_lag_max_seconds');
      process.stdout.write(
        `broker-kill: sends=${summary.sends} acked=${summary.acked} failed=${summary.failed} ` +
          `503-requests=${answered503} refused-events=${refused} ` +
          `client-saw=${JSON.stringify(failures.counts)} examples=${JSON.stringify(failures.examples)} ` +
          `server-closed=${JSON.stringify(closed)} event-loop-lag-max-s=${lagMax} ` +
          `tcp-drops-before=${JSON.stringify(dropsBefore)} after=${JSON.stringify(listenDrops())}\n`,
      );
      // The partitions the dead broker led take new leaders only after its KRaft session times out
      // (seconds), longer than the 2 s ack timeout: some requests must have been answered 503.
      expect(answered503).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
      // Every failed send was answered 503 (with Retry-After, server.spec.ts): none was cut by a
      // reset or a closed connection, none timed out at the client, and the events the collector
      // refused are exactly the ones the client booked as 503.
      expect(failures.counts).toEqual({
        http_503: summary.failed,
        http_other: 0,
        reset: 0,
        timeout: 0,
        other: 0,
      });
      expect(refused).toBe(summary.failed);
    } finally {
      if (killed) await stackNode('restart-node', victim);
    }
  });
});
