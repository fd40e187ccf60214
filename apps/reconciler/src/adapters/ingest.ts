/** Reads each event's observed ingest_time (stamped by the gatekeeper from the broker's LogAppendTime) from events.valid, by seq. */

import { decodeEvent, HEADERS } from '@clickstream/contracts';
import type { InRecord, ScanWant } from '@clickstream/kafka-tx';
import type { IngestRead } from '../core/reconcile-timed';
import { NO_SEQ, seqFromHeader } from './../core/contents';
import type { TopicSource } from './kafka';

/** What reading ingest times needs of each record. */
export const INGEST_WANT: ScanWant = { headers: [HEADERS.runId, HEADERS.seq], values: true };

/** This run's valid records reduced, one at a time, to seq -> ingest_time. */
export class IngestExtractor {
  private readonly run: Buffer;
  private readonly times = new Map<number, number>();
  private undecodable = 0;
  private noIngest = 0;

  constructor(
    runId: string,
    private readonly ends: ReadonlyMap<number, number> | null,
  ) {
    this.run = Buffer.from(runId);
  }

  add(r: InRecord): void {
    if (this.ends !== null) {
      const end = this.ends.get(r.partition);
      if (end === undefined || r.offset >= end) return;
    }
    const header = r.headers[HEADERS.runId];
    if (header === undefined || !this.run.equals(header)) return;
    const seq = seqFromHeader(r.headers[HEADERS.seq]);
    if (seq === NO_SEQ) return;
    const decoded = decodeEvent(r.value, { ingestTime: r.timestamp });
    if (!decoded.ok) {
      this.undecodable++;
      return;
    }
    const t = decoded.event.ingest_time;
    if (t === null) {
      this.noIngest++;
      return;
    }
    // A send written twice to events.valid keeps its first ingest time (the one the clean job saw first).
    if (!this.times.has(seq)) this.times.set(seq, t);
  }

  finish(): IngestRead & { ok: true } {
    const notes: string[] = [];
    if (this.undecodable > 0)
      notes.push(`${this.undecodable} valid record(s) of this run did not decode`);
    if (this.noIngest > 0)
      notes.push(`${this.noIngest} valid record(s) of this run without ingest_time`);
    return { ok: true, times: this.times, notes };
  }
}

/** This run's valid records reduced to seq -> ingest_time; pure, so it is unit-tested. */
export function extractIngestTimes(
  records: readonly InRecord[],
  runId: string,
  ends: ReadonlyMap<number, number> | null,
): IngestRead & { ok: true } {
  const x = new IngestExtractor(runId, ends);
  for (const r of records) x.add(r);
  return x.finish();
}

export async function readIngestTimes(
  source: TopicSource,
  topic: string,
  runId: string,
): Promise<IngestRead> {
  try {
    const x = new IngestExtractor(runId, await source.endOffsets(topic));
    await source.scan(topic, INGEST_WANT, (r) => x.add(r));
    return x.finish();
  } catch (err) {
    return {
      ok: false,
      error: `topic ${topic}: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}
