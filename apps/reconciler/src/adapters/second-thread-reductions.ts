/**
 * The second thread's side of a reduction (second-thread.ts): the records of each chunk go, in
 * order, through the same reducer the main thread would run (LatestPerKey). Pure over messages,
 * so it is unit-tested without a thread.
 */

import type { InRecord } from '@clickstream/kafka-tx';
import { AGGREGATE_WANT, LatestPerKey, SESSION_EMISSIONS, WINDOW_EMISSIONS } from './aggregates';
import type { FromSecondThread, ReduceTask, ToSecondThread } from './second-thread';
import { unpackRecords } from './record-chunks';

interface Reduction {
  task: ReduceTask;
  headers: readonly string[];
  add(r: InRecord): void;
  finish(): unknown;
}

function reductionOf(task: ReduceTask): Reduction {
  const x =
    task.shape === 'windows'
      ? new LatestPerKey(task.runId, task.ends, WINDOW_EMISSIONS)
      : new LatestPerKey(task.runId, task.ends, SESSION_EMISSIONS);
  return {
    task,
    headers: AGGREGATE_WANT.headers,
    add: (r) => x.add(r),
    finish: () => x.finish(),
  };
}

const why = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The reductions under way; `handle` takes one message and says what to answer, if anything. */
export class Reductions {
  /** A reduction that failed keeps its error until its end, where it is answered. */
  private readonly under = new Map<number, Reduction | { error: string }>();

  get size(): number {
    return this.under.size;
  }

  handle(m: ToSecondThread): FromSecondThread | null {
    if (m.kind === 'reduce-start') {
      try {
        this.under.set(m.id, reductionOf(m.task));
      } catch (err) {
        this.under.set(m.id, { error: why(err) });
      }
      return null;
    }
    const x = this.under.get(m.id);
    if (x === undefined) return null;
    if (m.kind === 'reduce-abort') {
      this.under.delete(m.id);
      return null;
    }
    if (m.kind === 'reduce-end') this.under.delete(m.id);
    if ('error' in x)
      return m.kind === 'reduce-end' ? { kind: 'reduce-failed', id: m.id, error: x.error } : null;
    try {
      if (m.kind === 'reduce-chunk') {
        unpackRecords(m.chunk, x.task.topic, x.headers, x.add);
        return null;
      }
      return { kind: 'reduced', id: m.id, result: x.finish() };
    } catch (err) {
      if (m.kind === 'reduce-end') return { kind: 'reduce-failed', id: m.id, error: why(err) };
      this.under.set(m.id, { error: why(err) });
      return null;
    }
  }
}
