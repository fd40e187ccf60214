/** Pure batch arithmetic: where to resume after a batch is committed, where to rewind when it is aborted. */
import type { TopicPartitionOffset } from './ports';
import type { InRecord } from './types';

function byPartition(
  batch: InRecord[],
  pick: (prev: number | undefined, offset: number) => number,
): TopicPartitionOffset[] {
  const m = new Map<string, TopicPartitionOffset>();
  for (const r of batch) {
    const k = `${r.topic}\u0000${r.partition}`;
    const prev = m.get(k);
    m.set(k, { topic: r.topic, partition: r.partition, offset: pick(prev?.offset, r.offset) });
  }
  return [...m.values()].sort((a, b) =>
    a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
  );
}

/** The offsets to commit with the batch: the next record to read per partition (last offset + 1). */
export function nextOffsets(batch: InRecord[]): TopicPartitionOffset[] {
  return byPartition(batch, (prev, o) => Math.max(prev ?? -1, o + 1));
}

/**
 * Where to seek after an abort: the first offset of the batch per partition. Every record before
 * it was committed by an earlier transaction (batches are contiguous per partition), so this is
 * the committed position without asking the coordinator, which may be the thing that failed.
 */
export function rewindOffsets(batch: InRecord[]): TopicPartitionOffset[] {
  return byPartition(batch, (prev, o) => Math.min(prev ?? Number.MAX_SAFE_INTEGER, o));
}

/** Exponential backoff, capped. */
export function backoffMs(attempt: number, baseMs = 100, capMs = 2000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
}
