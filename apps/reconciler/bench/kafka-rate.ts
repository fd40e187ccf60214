/** Kafka read rate as the reconciler reads (readTopic read_committed + header extraction), on a temporary topic. */

import { HEADERS } from '@clickstream/contracts';
import {
  createIdempotentProducer,
  createTopics,
  deleteTopics,
  readTopic,
  type OutRecord,
} from '@clickstream/kafka-tx';
import { extractRun } from '../src/adapters/kafka';

const noop = (): void => undefined;
const logger = { debug: noop, info: noop, warn: noop, error: noop };

export async function kafkaReadRate(
  bootstrap: string,
  n: number,
): Promise<Record<string, number | string>> {
  const topic = `reconciler-bench-${Date.now().toString(36)}`;
  const client = { bootstrap, clientId: `reconciler-bench-${process.pid}`, logger };
  await createTopics(client, [{ topic, partitions: 6 }]);
  try {
    const producer = await createIdempotentProducer(client);
    // Values of a typical event's size, so the read moves realistic bytes.
    const value = Buffer.alloc(180, 1);
    let t = Date.now();
    for (let start = 0; start < n; start += 20_000) {
      const batch: OutRecord[] = [];
      for (let seq = start; seq < Math.min(n, start + 20_000); seq++) {
        batch.push({
          topic,
          key: `s-${seq % 997}`,
          value,
          headers: { [HEADERS.seq]: String(seq), [HEADERS.runId]: 'bench' },
        });
      }
      const reports = await producer.send(batch);
      const bad = reports.find((r) => !r.ok);
      if (bad !== undefined) throw new Error(`produce failed: ${bad.error}`);
    }
    await producer.close();
    const produceMs = Date.now() - t;
    global.gc?.(); // with node --expose-gc: a baseline without the producer's garbage
    const before = process.memoryUsage();
    t = Date.now();
    const cpu = process.cpuUsage();
    const records = await readTopic({ ...client, topic, isolation: 'read_committed' });
    const readMs = Date.now() - t;
    const used = process.cpuUsage(cpu);
    // What holding a topic's records costs (readTopic returns them all): the reconciler's peak
    // memory grows with the largest topic it reads.
    global.gc?.();
    const held = process.memoryUsage();
    const mib = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;
    // librdkafka's threads included: the whole process's CPU time for the read.
    const readCpuMs = (used.user + used.system) / 1000;
    const ends = new Map([0, 1, 2, 3, 4, 5].map((p) => [p, Number.MAX_SAFE_INTEGER]));
    const seqs = extractRun(records, { kind: 'raw', runId: 'bench', ends }).contents.seqs.length;
    if (seqs !== n) throw new Error(`read ${seqs} of ${n} records`);
    return {
      topic_partitions: 6,
      records: n,
      produce_ms: produceMs,
      read_ms: readMs,
      read_cpu_ms: Math.round(readCpuMs),
      read_cpu_us_per_record: Math.round((readCpuMs / n) * 1000 * 10) / 10,
      read_records_per_s: Math.round(n / (readMs / 1000)),
      read_ms_per_million: Math.round((readMs / n) * 1e6),
      held_rss_mib: mib(held.rss - before.rss),
      held_heap_mib: mib(held.heapUsed - before.heapUsed),
      held_external_mib: mib(held.external - before.external),
      held_bytes_per_record: Math.round((held.rss - before.rss) / n),
      gc_exposed: typeof global.gc === 'function' ? 'yes' : 'no',
    };
  } finally {
    await deleteTopics(client, [topic]).catch(noop);
  }
}
