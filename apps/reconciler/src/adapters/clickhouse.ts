/**
 * ClickHouse layer adapter: a run's rows read WITHOUT FINAL (by @clickstream/warehouse) and grouped
 * by the Kafka record each was loaded from. The loader's own at-least-once redeliveries (same
 * topic, partition, offset) collapse into one record and are reported as information; two different
 * Kafka records of one event stay two, so the core reports the event as duplicated even in the
 * tables keyed on the event, where FINAL would hide them. A row loaded from another topic than the
 * one the table is fed from is unexpected.
 */

import {
  readRunRecords,
  TABLES,
  type EventTableRole,
  type RunRecords,
  type Warehouse,
} from '@clickstream/warehouse';
import { SeqList, toIndexSeq, type LayerContents, type LayerRead } from '../core/contents';
import { DEFAULT_EXAMPLES, EvidenceCollector } from '../core/evidence';
import type { LayerKind } from '../core/expectation';

/** The one call of the warehouse handle this adapter needs. */
export type SqlSource = Pick<Warehouse, 'query'>;

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
    const read = await readRunRecords(sql, o.role, o.runId);
    return { ok: true, contents: toContents(read, o, Date.now() - started) };
  } catch (err) {
    return {
      ok: false,
      error: `table ${TABLES[o.role]}: ${err instanceof Error ? err.message : String(err)}`,
      readMs: Date.now() - started,
    };
  }
}

/** A run's records of one table reduced to the core's contents; pure, so it is unit-tested. */
export function toContents(
  read: RunRecords,
  o: Pick<ClickHouseLayerOptions, 'kind' | 'topic' | 'examples'>,
  readMs: number,
): LayerContents {
  const { table, records } = read;
  const seqs = new SeqList();
  const reasons: (string | null)[] = [];
  const eventIds: (string | null)[] = [];
  const wrongTopic = new EvidenceCollector(o.examples ?? DEFAULT_EXAMPLES);
  const redelivered = new EvidenceCollector(3);
  for (const r of records) {
    const seq = toIndexSeq(r.seq);
    const copies = Number(r.copies);
    if (copies > 1)
      redelivered.add(
        { seq, partition: r.kafka_partition, offset: r.kafka_offset, rows: copies },
        copies - 1,
      );
    if (r.kafka_topic !== o.topic) {
      wrongTopic.add({
        seq,
        why: `row loaded from topic ${JSON.stringify(r.kafka_topic)}; ${table} is fed from ${JSON.stringify(o.topic)}`,
      });
      continue;
    }
    seqs.push(seq);
    reasons.push(r.reason ?? null);
    eventIds.push(r.event_id ?? null);
  }
  const notes = [
    `table ${table}: ${read.raw} stored row(s) of this run (read without FINAL), ${records.length} distinct Kafka record(s)`,
  ];
  if (redelivered.count > 0) {
    // Same topic, partition and offset: the loader wrote one record twice (at-least-once); FINAL
    // or a merge collapses it, and it is never a duplicate of the event.
    const e = redelivered.toEvidence();
    notes.push(
      `${e.count} stored row(s) are the loader's redeliveries of a record already counted (same topic/partition/offset), e.g. ${JSON.stringify(e.examples)}`,
    );
  }
  const contents: LayerContents = { seqs: seqs.toArray(), foreign: read.otherRuns, notes, readMs };
  if (wrongTopic.count > 0) contents.unexpected = wrongTopic.toEvidence();
  if (o.kind === 'dlq') contents.reasons = reasons;
  if (o.kind === 'clean') contents.eventIds = eventIds;
  return contents;
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
