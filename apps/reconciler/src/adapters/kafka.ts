/** Kafka layer adapter: reads a topic read_committed up to the end offsets taken at the start and keeps this run's records by header. */

import { HEADERS } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import { seqFromHeader, SeqList, type LayerRead } from '../core/contents';
import type { LayerKind } from '../core/expectation';

/** The two calls this adapter needs from @clickstream/kafka-tx, bound to a cluster (read_committed). */
export interface TopicSource {
  endOffsets(topic: string): Promise<Map<number, number>>;
  readTopic(topic: string): Promise<InRecord[]>;
}

export interface KafkaLayerOptions {
  topic: string;
  kind: LayerKind;
  runId: string;
  /** End offsets per partition taken when reconciliation started: records at or past them are not counted. */
  ends: Map<number, number>;
}

/** Reduces a topic's records to this run's seqs (and reasons for the dead-letter topic); pure, so it is unit-tested. */
export function extractRun(
  records: readonly InRecord[],
  o: Omit<KafkaLayerOptions, 'topic'>,
): LayerRead & { ok: true } {
  const runId = Buffer.from(o.runId);
  const seqs = new SeqList();
  const reasons: (string | null)[] | undefined = o.kind === 'dlq' ? [] : undefined;
  let foreign = 0;
  let late = 0;
  let noRunId = 0;
  for (const r of records) {
    const end = o.ends.get(r.partition);
    if (end === undefined || r.offset >= end) {
      late++;
      continue;
    }
    const run = r.headers[HEADERS.runId];
    if (run === undefined) noRunId++;
    if (run === undefined || !runId.equals(run)) {
      foreign++;
      continue;
    }
    seqs.push(seqFromHeader(r.headers[HEADERS.seq]));
    if (reasons !== undefined) {
      const reason = r.headers[HEADERS.reason];
      reasons.push(reason === undefined ? null : reason.toString('utf8'));
    }
  }
  const notes: string[] = [];
  if (noRunId > 0)
    notes.push(`${noRunId} record(s) without a ${HEADERS.runId} header (counted with other runs)`);
  if (late > 0) notes.push(`${late} record(s) past the end offsets taken at the start ignored`);
  const contents = {
    seqs: seqs.toArray(),
    foreign,
    notes,
    readMs: 0,
    ...(reasons !== undefined ? { reasons } : {}),
  };
  return { ok: true, contents };
}

export async function readKafkaLayer(
  source: TopicSource,
  o: KafkaLayerOptions,
): Promise<LayerRead> {
  const started = Date.now();
  try {
    const records = await source.readTopic(o.topic);
    const read = extractRun(records, o);
    read.contents.readMs = Date.now() - started;
    read.contents.notes.unshift(`topic ${o.topic}: ${records.length} record(s) read`);
    return read;
  } catch (err) {
    return {
      ok: false,
      error: `topic ${o.topic}: ${err instanceof Error ? err.message : String(err)}`,
      readMs: Date.now() - started,
    };
  }
}
