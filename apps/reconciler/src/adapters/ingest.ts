/**
 * Each event's observed ingest_time (stamped by the gatekeeper from the broker's LogAppendTime), by
 * seq, out of an events.valid layer read (adapters/kafka.ts reads each value's ingest_time once, for both).
 */

import type { IngestRead } from '../core/reconcile-timed';
import { denseSizeFor, SeqTimes } from '../core/seq-times';
import { NO_SEQ, type LayerContents, type LayerRead } from './../core/contents';
import { readKafkaLayer, type TopicSource } from './kafka';

/** seq -> the first ingest_time, in the layer's order (partition, then offset); null when the contents hold no valid records. */
function ingestTimesOf(contents: LayerContents): (IngestRead & { ok: true }) | null {
  const { seqs, records } = contents;
  if (records?.kind !== 'valid') return null;
  const times = new SeqTimes(denseSizeFor(seqs));
  // Where each seq stands (partition, rank in the layer's order): the clean job keeps the copy of an
  // event it reads first, which is not always the first one sent (docs/RECONCILER.md, "Lateness").
  const partition = new SeqTimes(denseSizeFor(seqs));
  const rank = new SeqTimes(denseSizeFor(seqs));
  let without = 0;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i] as number;
    const t = records.ingestTimes[i] as number;
    if (Number.isNaN(t)) {
      without++;
      continue;
    }
    // A send written twice to events.valid keeps its first ingest time (the one the clean job saw first).
    if (seq !== NO_SEQ && times.setFirst(seq, t)) {
      partition.setFirst(seq, records.partitions[i] as number);
      rank.setFirst(seq, i);
    }
  }
  const notes =
    without > 0
      ? [
          `${without} valid record(s) of this run without ingest_time (undecodable, or none in the value)`,
        ]
      : [];
  return { ok: true, times, positions: { partition, rank }, notes };
}

/**
 * The ingest times out of the events.valid layer's own read, up to the same end offsets.
 * Undefined when there is no such read, or it holds no valid records to take them from.
 */
export function ingestTimesOfLayer(read: LayerRead | undefined): IngestRead | undefined {
  if (read === undefined) return undefined;
  if (!read.ok) return { ok: false, error: `events.valid could not be read: ${read.error}` };
  return ingestTimesOf(read.contents) ?? undefined;
}

/** Reads the ingest times when the events.valid layer itself is not reconciled. */
export async function readIngestTimes(
  source: TopicSource,
  topic: string,
  runId: string,
): Promise<IngestRead> {
  let ends: Map<number, number>;
  try {
    ends = await source.endOffsets(topic);
  } catch (err) {
    return {
      ok: false,
      error: `topic ${topic}: end offsets: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const read = await readKafkaLayer(source, { topic, kind: 'valid', runId, ends });
  return ingestTimesOfLayer(read) ?? { ok: false, error: `topic ${topic}: no valid records read` };
}
