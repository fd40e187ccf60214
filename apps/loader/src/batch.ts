/** Maps one consumed batch to the rows of each table: a pure function, so every outcome is testable without servers. */
import {
  HEADERS,
  decodeEvent,
  decodeSessionAggregate,
  decodeWindowAggregate,
  parseSeqHeader,
} from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import {
  toDlqRow,
  toEventRow,
  toRejectRow,
  toSessionRow,
  toWindowRow,
  type DlqRow,
  type EventRow,
  type RejectRow,
  type SessionRow,
  type TableRole,
  type WindowRow,
} from '@clickstream/warehouse';

export interface TableBatch {
  valid: EventRow[];
  clean: EventRow[];
  dlq: DlqRow[];
  /** events.late: the exact events.clean records of late events. */
  late: EventRow[];
  windows: WindowRow[];
  sessions: SessionRow[];
  /** Records that did not decode: kept in load_rejects, never dropped. */
  rejects: RejectRow[];
}

/**
 * `roleOf` maps a topic to its table role. `insertedAt` (ms) is stamped on every row so that
 * freshness can be measured in SQL as inserted_at - ingest_time.
 */
export function toTableBatch(
  records: readonly InRecord[],
  roleOf: ReadonlyMap<string, TableRole>,
  insertedAt: number,
): TableBatch {
  const out: TableBatch = {
    valid: [],
    clean: [],
    dlq: [],
    late: [],
    windows: [],
    sessions: [],
    rejects: [],
  };
  for (const r of records) {
    const role = roleOf.get(r.topic);
    if (role === undefined) throw new Error(`loader: record from unsubscribed topic ${r.topic}`);
    const meta = {
      topic: r.topic,
      partition: r.partition,
      offset: r.offset,
      timestamp: r.timestamp,
      headerSeq: parseSeqHeader(r.headers[HEADERS.seq]),
    };
    if (role === 'dlq') {
      out.dlq.push(toDlqRow(r, meta, insertedAt));
      continue;
    }
    if (role === 'windows') {
      const w = decodeWindowAggregate(r.value);
      if (w.ok) out.windows.push(toWindowRow(w.value, meta, insertedAt));
      else
        out.rejects.push(
          toRejectRow(r, meta, { reason: 'bad_aggregate', detail: w.detail }, insertedAt),
        );
      continue;
    }
    if (role === 'sessions') {
      const s = decodeSessionAggregate(r.value);
      if (s.ok) out.sessions.push(toSessionRow(s.value, meta, insertedAt));
      else
        out.rejects.push(
          toRejectRow(r, meta, { reason: 'bad_aggregate', detail: s.detail }, insertedAt),
        );
      continue;
    }
    // The gatekeeper stamped the valid record's timestamp from the raw one, so the contract's
    // event_time sanity check sees the same ingest time it saw at the front door.
    const decoded = decodeEvent(r.value, { ingestTime: r.timestamp });
    if (decoded.ok) out[role].push(toEventRow(decoded.event, meta, insertedAt));
    else out.rejects.push(toRejectRow(r, meta, decoded, insertedAt));
  }
  return out;
}
