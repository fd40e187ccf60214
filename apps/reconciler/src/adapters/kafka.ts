/** Kafka layer adapter: reads a topic read_committed up to the end offsets taken at the start and keeps this run's records by header. */

import { HEADERS, readIngestTime } from '@clickstream/contracts';
import {
  endOffsets,
  scanTopic,
  trimmedBeforeRead,
  type InRecord,
  type KafkaClientOptions,
  type ScanWant,
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
import { readNotes, type Trimmed } from './read-note';

export { readNotes } from './read-note';

/** The two calls this adapter needs from @clickstream/kafka-tx, bound to a cluster (read_committed). */
export interface TopicSource {
  endOffsets(topic: string): Promise<Map<number, number>>;
  /**
   * Hands every record of the topic (from the read start up to its end now) to `visit`, in
   * partition order, then offset order; resolves with how many. Only what `want` names is sure to
   * be there, and every buffer is a view that is reused after the call: copy what is kept.
   */
  scan(topic: string, want: ScanWant, visit: (r: InRecord) => void): Promise<TopicScan>;
  /** Where each read starts, in words, for the layer notes (e.g. "from 2026-12-01T10:00:00.000Z (...)"). */
  readonly from?: string;
  /** Which reader reads, in words, for the layer notes (e.g. "by the compiled topic reader"). */
  readonly reader?: string;
}

/** What a scan read: how many records, and the partitions whose read began at a log start that deletions had moved (kafka-tx's trimmedBeforeRead). */
export interface TopicScan {
  records: number;
  trimmed: Trimmed[];
}

/** A TopicSource over records in memory (tests, and any caller that already holds the records). */
export function recordsTopicSource(
  topics: Readonly<Record<string, readonly InRecord[]>>,
  ends: (topic: string) => Map<number, number> = () => new Map(),
): TopicSource {
  return {
    endOffsets: (topic) => Promise.resolve(ends(topic)),
    scan(topic, _want, visit) {
      const records = topics[topic] ?? [];
      for (const r of records) visit(r);
      return Promise.resolve({ records: records.length, trimmed: [] });
    },
  };
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

/**
 * The production TopicSource: @clickstream/kafka-tx against a cluster, read_committed, from
 * `start`; through the compiled topic reader at `readerPath`, or through readTopic without it.
 */
export function kafkaTopicSource(
  client: KafkaClientOptions,
  start: KafkaReadStart,
  readerPath?: string,
): TopicSource {
  return {
    endOffsets: (topic) => endOffsets(client, topic, 'read_committed'),
    scan: async (topic, want, visit) => {
      const r = await scanTopic(
        {
          ...client,
          topic,
          isolation: 'read_committed',
          ...(start.fromTimeMs === null ? {} : { fromTimeMs: start.fromTimeMs }),
          ...want,
          ...(readerPath === undefined ? {} : { readerPath }),
        },
        visit,
      );
      return { records: r.records, trimmed: trimmedBeforeRead(r.ranges) };
    },
    from: start.from,
    reader:
      readerPath === undefined
        ? 'by readTopic (librdkafka)'
        : `by the compiled topic reader (${readerPath})`,
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
      if (this.keepValue(seq)) this.keptValues.set(index, copy(r.value));
    } else if (this.kind === 'valid') {
      this.partitions.push(r.partition);
      // Only ingest_time is read: the rest of the value is skipped, not built (readIngestTime).
      const read = readIngestTime(r.value);
      if (!read.ok) this.undecodable++;
      this.times.push(read.ok ? (read.ingestTime ?? NaN) : NaN);
    } else {
      this.values.push(copy(r.value));
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

/** A buffer kept beyond a scan's visit, which may be a view into a reused chunk. */
function copy(b: Buffer | null): Buffer | null {
  return b === null ? null : Buffer.from(b);
}

/** A non-negative decimal header (partition, offset); NaN when absent or not canonical decimal. */
function decimal(value: Buffer | undefined): number {
  if (value === undefined) return NaN;
  const text = value.toString('latin1');
  return /^(0|[1-9][0-9]{0,15})$/.test(text) ? Number(text) : NaN;
}

/** What a Kafka layer of `kind` reads of each record (the compiled reader sends nothing else). */
export function wantOf(kind: LayerKind): ScanWant {
  const headers: string[] = [HEADERS.runId, HEADERS.seq];
  if (kind === 'dlq')
    headers.push(
      HEADERS.reason,
      HEADERS.sourceTopic,
      HEADERS.sourcePartition,
      HEADERS.sourceOffset,
    );
  return { headers, values: kind !== 'clean' };
}

/** Reduces a topic's records, one at a time, to this run's seqs (and reasons for the dead-letter topic). */
export class RunExtractor {
  private readonly runId: Buffer;
  private readonly seqs = new SeqList();
  private readonly reasons: (string | null)[] | undefined;
  private readonly facts: RecordFacts | null;
  private foreign = 0;
  private late = 0;
  private noRunId = 0;

  constructor(private readonly o: Omit<KafkaLayerOptions, 'topic'> & { topic?: string }) {
    this.runId = Buffer.from(o.runId);
    this.reasons = o.kind === 'dlq' ? [] : undefined;
    this.facts =
      o.kind === 'clean'
        ? null
        : new RecordFacts(o.kind, o.topic ?? '', o.keepValue ?? (() => false));
  }

  add(r: InRecord): void {
    const end = this.o.ends.get(r.partition);
    if (end === undefined || r.offset >= end) {
      this.late++;
      return;
    }
    const run = r.headers[HEADERS.runId];
    if (run === undefined) this.noRunId++;
    if (run === undefined || !this.runId.equals(run)) {
      this.foreign++;
      return;
    }
    const seq = seqFromHeader(r.headers[HEADERS.seq]);
    this.facts?.add(r, seq, this.seqs.length);
    this.seqs.push(seq);
    if (this.reasons !== undefined) {
      const reason = r.headers[HEADERS.reason];
      this.reasons.push(reason === undefined ? null : reason.toString('utf8'));
    }
  }

  finish(): LayerRead & { ok: true } {
    const notes: string[] = [];
    if (this.noRunId > 0)
      notes.push(
        `${this.noRunId} record(s) without a ${HEADERS.runId} header (counted with other runs)`,
      );
    if (this.late > 0)
      notes.push(`${this.late} record(s) past the end offsets taken at the start ignored`);
    if (this.facts !== null && this.facts.undecodable > 0)
      notes.push(`${this.facts.undecodable} record(s) of this run did not decode (no ingest_time)`);
    const contents: LayerContents = {
      seqs: this.seqs.toArray(),
      foreign: this.foreign,
      notes,
      readMs: 0,
    };
    if (this.reasons !== undefined) contents.reasons = this.reasons;
    if (this.facts !== null) contents.records = this.facts.toRecords();
    return { ok: true, contents };
  }
}

/** Reduces a topic's records to this run's seqs (and reasons for the dead-letter topic); pure, so it is unit-tested. */
export function extractRun(
  records: readonly InRecord[],
  o: Omit<KafkaLayerOptions, 'topic'> & { topic?: string },
): LayerRead & { ok: true } {
  const x = new RunExtractor(o);
  for (const r of records) x.add(r);
  return x.finish();
}

export async function readKafkaLayer(
  source: TopicSource,
  o: KafkaLayerOptions,
): Promise<LayerRead> {
  const started = Date.now();
  try {
    const x = new RunExtractor(o);
    const scan = await source.scan(o.topic, wantOf(o.kind), (r) => x.add(r));
    const read = x.finish();
    read.contents.readMs = Date.now() - started;
    read.contents.notes.unshift(...readNotes(o.topic, scan, source));
    return read;
  } catch (err) {
    return {
      ok: false,
      error: `topic ${o.topic}: ${err instanceof Error ? err.message : String(err)}`,
      readMs: Date.now() - started,
    };
  }
}
