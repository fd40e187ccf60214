/** Reads each event's observed ingest_time (stamped by the gatekeeper from the broker's LogAppendTime) from events.valid, by seq. */

import { decodeEvent, HEADERS } from '@clickstream/contracts';
import type { InRecord, ScanWant } from '@clickstream/kafka-tx';
import type { IngestRead } from '../core/reconcile-timed';
import { NO_SEQ, seqFromHeader, type LayerRead } from './../core/contents';
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

/**
 * The ingest times out of the events.valid layer's own read (its records decoded once, up to the
 * same end offsets): seq -> the first ingest_time, in the layer's order (partition, then offset),
 * as IngestExtractor keeps them. Undefined when that read holds no valid records to take them from.
 */
export function ingestTimesOfLayer(read: LayerRead | undefined): IngestRead | undefined {
  if (read === undefined) return undefined;
  if (!read.ok) return { ok: false, error: `events.valid could not be read: ${read.error}` };
  const { seqs, records } = read.contents;
  if (records?.kind !== 'valid') return undefined;
  const times = new Map<number, number>();
  let without = 0;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i] as number;
    const t = records.ingestTimes[i] as number;
    if (Number.isNaN(t)) {
      without++;
      continue;
    }
    if (seq !== NO_SEQ && !times.has(seq)) times.set(seq, t);
  }
  const notes =
    without > 0 ? [`${without} valid record(s) of this run without a decodable ingest_time`] : [];
  return { ok: true, times, notes };
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
