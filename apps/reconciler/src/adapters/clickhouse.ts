/**
 * ClickHouse layer adapter: a run's rows read WITHOUT FINAL (by @clickstream/warehouse) and grouped
 * by the Kafka record each was loaded from. The loader's own at-least-once redeliveries (same
 * topic, partition, offset) collapse into one record and are reported as information; two different
 * Kafka records of one event stay two, so the core reports the event as duplicated even in the
 * tables keyed on the event, where FINAL would hide them. A row loaded from another topic than the
 * one the table is fed from is unexpected.
 */

import {
  scanRunRecords,
  TABLES,
  type EventTableRole,
  type RunRecordRow,
  type RunRecordsScan,
  type Warehouse,
} from '@clickstream/warehouse';
import { SeqList, toIndexSeq, type LayerContents, type LayerRead } from '../core/contents';
import { DEFAULT_EXAMPLES, EvidenceCollector } from '../core/evidence';
import type { LayerKind } from '../core/expectation';

/** The calls of the warehouse handle this adapter needs. */
export type SqlSource = Pick<Warehouse, 'query' | 'queryStream'>;

export interface ClickHouseLayerOptions {
  /** The event table of the layer (its name, key and columns are the warehouse's). */
  role: EventTableRole;
  kind: LayerKind;
  runId: string;
  /** The topic the loader feeds this table from: every row's kafka_topic must name it. */
  topic: string;
  examples?: number;
}

export async function readClickHouseLayer(
  sql: SqlSource,
  o: ClickHouseLayerOptions,
): Promise<LayerRead> {
  const started = Date.now();
  try {
    const contents = new ContentsBuilder(o, TABLES[o.role]);
    const scan = await scanRunRecords(sql, o.role, o.runId, o.topic, (r) => contents.add(r));
    return { ok: true, contents: contents.finish(scan, Date.now() - started) };
  } catch (err) {
    return {
      ok: false,
      error: `table ${TABLES[o.role]}: ${err instanceof Error ? err.message : String(err)}`,
      readMs: Date.now() - started,
    };
  }
}

/** A run's records of one table reduced, one at a time, to the core's contents (tested through readClickHouseLayer). */
class ContentsBuilder {
  private readonly seqs = new SeqList();
  private readonly reasons: (string | null)[] = [];
  private readonly eventIds: (string | null)[] = [];
  private readonly wrongTopic: EvidenceCollector;
  private readonly redelivered = new EvidenceCollector(3);

  constructor(
    private readonly o: Pick<ClickHouseLayerOptions, 'kind' | 'topic' | 'examples'>,
    private readonly table: string,
  ) {
    this.wrongTopic = new EvidenceCollector(o.examples ?? DEFAULT_EXAMPLES);
  }

  add(r: RunRecordRow): void {
    const seq = toIndexSeq(r.seq);
    if (r.copies > 1)
      this.redelivered.add(
        { seq, partition: r.partition, offset: r.offset, rows: r.copies },
        r.copies - 1,
      );
    if (r.otherTopic !== null) {
      this.wrongTopic.add({
        seq,
        why: `row loaded from topic ${JSON.stringify(r.otherTopic)}; ${this.table} is fed from ${JSON.stringify(this.o.topic)}`,
      });
      return;
    }
    this.seqs.push(seq);
    if (this.o.kind === 'dlq') this.reasons.push(r.text);
    else if (this.o.kind === 'clean') this.eventIds.push(r.text);
  }

  finish(scan: RunRecordsScan, readMs: number): LayerContents {
    const notes = [
      `table ${scan.table}: ${scan.raw} stored row(s) of this run (read without FINAL), ${scan.records} distinct Kafka record(s)`,
    ];
    if (this.redelivered.count > 0) {
      // Same topic, partition and offset: the loader wrote one record twice (at-least-once); FINAL
      // or a merge collapses it, and it is never a duplicate of the event.
      const e = this.redelivered.toEvidence();
      notes.push(
        `${e.count} stored row(s) are the loader's redeliveries of a record already counted (same topic/partition/offset), e.g. ${JSON.stringify(e.examples)}`,
      );
    }
    const contents: LayerContents = {
      seqs: this.seqs.toArray(),
      foreign: scan.otherRuns,
      notes,
      readMs,
    };
    if (this.wrongTopic.count > 0) contents.unexpected = this.wrongTopic.toEvidence();
    if (this.o.kind === 'dlq') contents.reasons = this.reasons;
    if (this.o.kind === 'clean') contents.eventIds = this.eventIds;
    return contents;
  }
}

/** The event table and content kind of each ClickHouse layer (the topic it is fed from comes from the config). */
export const CLICKHOUSE_TABLES = {
  'clickhouse.valid': { role: 'valid', kind: 'valid', topic: 'valid' },
  'clickhouse.dlq': { role: 'dlq', kind: 'dlq', topic: 'dlq' },
  'clickhouse.clean': { role: 'clean', kind: 'clean', topic: 'clean' },
} as const satisfies Record<
  string,
  { role: EventTableRole; kind: LayerKind; topic: 'valid' | 'dlq' | 'clean' }
>;
