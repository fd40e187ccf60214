/** Reads each event's observed ingest_time (stamped by the gatekeeper from the broker's LogAppendTime) from events.valid, by seq. */

import { decodeEvent, HEADERS } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import type { IngestRead } from '../core/reconcile-timed';
import { NO_SEQ, seqFromHeader } from './../core/contents';
import type { TopicSource } from './kafka';

/** This run's valid records reduced to seq -> ingest_time; pure, so it is unit-tested. */
export function extractIngestTimes(
  records: readonly InRecord[],
  runId: string,
  ends: ReadonlyMap<number, number>,
): IngestRead & { ok: true } {
  const run = Buffer.from(runId);
  const times = new Map<number, number>();
  let undecodable = 0;
  let noIngest = 0;
  for (const r of records) {
    const end = ends.get(r.partition);
    if (end === undefined || r.offset >= end) continue;
    const header = r.headers[HEADERS.runId];
    if (header === undefined || !run.equals(header)) continue;
    const seq = seqFromHeader(r.headers[HEADERS.seq]);
    if (seq === NO_SEQ) continue;
    const decoded = decodeEvent(r.value, { ingestTime: r.timestamp });
    if (!decoded.ok) {
      undecodable++;
      continue;
    }
    const t = decoded.event.ingest_time;
    if (t === null) {
      noIngest++;
      continue;
    }
    // A send written twice to events.valid keeps its first ingest time (the one the clean job saw first).
    if (!times.has(seq)) times.set(seq, t);
  }
  const notes: string[] = [];
  if (undecodable > 0) notes.push(`${undecodable} valid record(s) of this run did not decode`);
  if (noIngest > 0) notes.push(`${noIngest} valid record(s) of this run without ingest_time`);
  return { ok: true, times, notes };
}

export async function readIngestTimes(
  source: TopicSource,
  topic: string,
  runId: string,
): Promise<IngestRead> {
  try {
    const ends = await source.endOffsets(topic);
    return extractIngestTimes(await source.readTopic(topic), runId, ends);
  } catch (err) {
    return {
      ok: false,
      error: `topic ${topic}: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}
