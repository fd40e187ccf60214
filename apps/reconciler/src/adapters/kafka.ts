/** Kafka layer adapter: reads a topic read_committed up to the end offsets taken at the start and keeps this run's records by header. */

import { decodeEvent, HEADERS } from '@clickstream/contracts';
import {
  endOffsets,
  readTopic,
  type InRecord,
  type KafkaClientOptions,
} from '@clickstream/kafka-tx';
import {
  NumberList,
  seqFromHeader,
  SeqList,
  type DlqRecords,
  type LayerContents,
  type LayerRead,
  type RawRecords,
  type ValidRecords,
} from '../core/contents';
import type { LayerKind } from '../core/expectation';

/** The two calls this adapter needs from @clickstream/kafka-tx, bound to a cluster (read_committed). */
export interface TopicSource {
  endOffsets(topic: string): Promise<Map<number, number>>;
  readTopic(topic: string): Promise<InRecord[]>;
  /** Where each read starts, in words, for the layer notes (e.g. "from 2026-12-01T10:00:00.000Z (...)"). */
  readonly from?: string;
}

/**
 * Where a reconciliation reads every topic from: the log start (null), or the first record of each
 * partition stamped at or after `fromTimeMs`. Records of a run are stamped at or after the run
 * started (docs/RECONCILER.md), so an earlier start only reads other runs' records.
 */
export interface KafkaReadStart {
  fromTimeMs: number | null;
  /** Why, in words. */
  from: string;
}

/** The production TopicSource: @clickstream/kafka-tx against a cluster, read_committed, from `start`. */
export function kafkaTopicSource(client: KafkaClientOptions, start: KafkaReadStart): TopicSource {
  return {
    endOffsets: (topic) => endOffsets(client, topic, 'read_committed'),
    readTopic: (topic) =>
      readTopic({
        ...client,
        topic,
        isolation: 'read_committed',
        ...(start.fromTimeMs === null ? {} : { fromTimeMs: start.fromTimeMs }),
      }),
    from: start.from,
  };
}

export interface KafkaLayerOptions {
  topic: string;
  kind: LayerKind;
  runId: string;
  /** End offsets per partition taken when reconciliation started: records at or past them are not counted. */
  ends: Map<number, number>;
  /** Raw layer: the seqs whose bytes are kept, to compare with their dead letters (the poison of the ledger). */
  keepValue?: (seq: number) => boolean;
}

/** Collects, per record of this run, what core/fidelity.ts checks for the raw, valid and dlq kinds. */
class RecordFacts {
  private readonly partitions = new SeqList();
  private readonly offsets = new NumberList();
  private readonly times = new NumberList();
  private readonly keptValues = new Map<number, Buffer | null>();
  private readonly values: (Buffer | null)[] = [];
  private readonly sourceTopics: (string | null)[] = [];
  private readonly sourcePartitions = new NumberList();
  private readonly sourceOffsets = new NumberList();
  undecodable = 0;

  constructor(
    private readonly kind: 'raw' | 'valid' | 'dlq',
    private readonly topic: string,
    private readonly keepValue: (seq: number) => boolean,
  ) {}

  add(r: InRecord, seq: number, index: number): void {
    if (this.kind === 'raw') {
      this.partitions.push(r.partition);
      this.offsets.push(r.offset);
      this.times.push(r.timestamp);
      if (this.keepValue(seq)) this.keptValues.set(index, r.value);
    } else if (this.kind === 'valid') {
      this.partitions.push(r.partition);
      const decoded = decodeEvent(r.value, { ingestTime: r.timestamp });
      if (!decoded.ok) this.undecodable++;
      this.times.push(decoded.ok ? (decoded.event.ingest_time ?? NaN) : NaN);
    } else {
      this.values.push(r.value);
      const topic = r.headers[HEADERS.sourceTopic];
      this.sourceTopics.push(topic === undefined ? null : topic.toString('utf8'));
      this.sourcePartitions.push(decimal(r.headers[HEADERS.sourcePartition]));
      this.sourceOffsets.push(decimal(r.headers[HEADERS.sourceOffset]));
    }
  }

  toRecords(): RawRecords | ValidRecords | DlqRecords {
    if (this.kind === 'raw')
      return {
        kind: 'raw',
        topic: this.topic,
        partitions: this.partitions.toArray(),
        offsets: this.offsets.toArray(),
        timestamps: this.times.toArray(),
        values: this.keptValues,
      };
    if (this.kind === 'valid')
      return {
        kind: 'valid',
        partitions: this.partitions.toArray(),
        ingestTimes: this.times.toArray(),
      };
    return {
      kind: 'dlq',
      values: this.values,
      sourceTopics: this.sourceTopics,
      sourcePartitions: this.sourcePartitions.toArray(),
      sourceOffsets: this.sourceOffsets.toArray(),
    };
  }
}

/** A non-negative decimal header (partition, offset); NaN when absent or not canonical decimal. */
function decimal(value: Buffer | undefined): number {
  if (value === undefined) return NaN;
  const text = value.toString('latin1');
  return /^(0|[1-9][0-9]{0,15})$/.test(text) ? Number(text) : NaN;
}

/** Reduces a topic's records to this run's seqs (and reasons for the dead-letter topic); pure, so it is unit-tested. */
export function extractRun(
  records: readonly InRecord[],
  o: Omit<KafkaLayerOptions, 'topic'> & { topic?: string },
): LayerRead & { ok: true } {
  const runId = Buffer.from(o.runId);
  const seqs = new SeqList();
  const reasons: (string | null)[] | undefined = o.kind === 'dlq' ? [] : undefined;
  const facts =
    o.kind === 'clean'
      ? null
      : new RecordFacts(o.kind, o.topic ?? '', o.keepValue ?? (() => false));
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
    const seq = seqFromHeader(r.headers[HEADERS.seq]);
    facts?.add(r, seq, seqs.length);
    seqs.push(seq);
    if (reasons !== undefined) {
      const reason = r.headers[HEADERS.reason];
      reasons.push(reason === undefined ? null : reason.toString('utf8'));
    }
  }
  const notes: string[] = [];
  if (noRunId > 0)
    notes.push(`${noRunId} record(s) without a ${HEADERS.runId} header (counted with other runs)`);
  if (late > 0) notes.push(`${late} record(s) past the end offsets taken at the start ignored`);
  if (facts !== null && facts.undecodable > 0)
    notes.push(`${facts.undecodable} record(s) of this run did not decode (no ingest_time)`);
  const contents: LayerContents = { seqs: seqs.toArray(), foreign, notes, readMs: 0 };
  if (reasons !== undefined) contents.reasons = reasons;
  if (facts !== null) contents.records = facts.toRecords();
  return { ok: true, contents };
}

/** The first note of a Kafka layer: how many records were read, and from where. */
export function readNote(topic: string, records: number, source: TopicSource): string {
  const from = source.from === undefined ? '' : ` ${source.from}`;
  return `topic ${topic}: ${records} record(s) read${from}`;
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
    read.contents.notes.unshift(readNote(o.topic, records.length, source));
    return read;
  } catch (err) {
    return {
      ok: false,
      error: `topic ${o.topic}: ${err instanceof Error ? err.message : String(err)}`,
      readMs: Date.now() - started,
    };
  }
}
