import type { PlannedSend } from './planned';
import { InFlight } from './in-flight';
import type { Sink, SinkOutcome } from './sink';

const send = (seq: number): PlannedSend => ({ seq }) as PlannedSend;
const acked = (): SinkOutcome => ({ delivery: 'acked', partition: 0, offset: 0, error: null });

/** A sink whose batches resolve only when the test says so. */
function manualSink(): Sink & { resolve(i: number): void; reject(i: number): void } {
  const pending: { resolve: (o: SinkOutcome[]) => void; reject: (e: Error) => void; n: number }[] =
    [];
  return {
    live: true,
    send: (batch) =>
      new Promise((resolve, reject) => pending.push({ resolve, reject, n: batch.length })),
    close: () => Promise.resolve(),
    resolve: (i) => pending[i]!.resolve(Array.from({ length: pending[i]!.n }, acked)),
    reject: (i) => pending[i]!.reject(new Error('boom')),
  };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('InFlight', () => {
  it('books batches in send order, even when a later one finishes first', async () => {
    const booked: [number, string][] = [];
    const q = new InFlight({
      record: (sends, outcomes) =>
        sends.forEach((s, i) => booked.push([s.seq, outcomes[i]!.delivery])),
    });
    const sink = manualSink();
    q.send(sink, [send(0), send(1)]);
    q.send(sink, [send(2)]);
    expect(q.records).toBe(3);
    sink.resolve(1);
    await tick();
    q.settleFinished();
    expect(booked).toEqual([]);
    sink.resolve(0);
    await tick();
    q.settleFinished();
    expect(booked.map(([s]) => s)).toEqual([0, 1, 2]);
    expect(q.records).toBe(0);
  });

  it('books a rejected batch as failed, never drops it, and waits down to a limit', async () => {
    const booked: [number, string][] = [];
    const q = new InFlight({
      record: (sends, outcomes) =>
        sends.forEach((s, i) => booked.push([s.seq, outcomes[i]!.delivery])),
    });
    const sink = manualSink();
    q.send(sink, [send(0)]);
    q.send(sink, [send(1)]);
    const settled = q.settleDownTo(1);
    sink.reject(0);
    await settled;
    expect(booked).toEqual([[0, 'failed']]);
    expect(q.records).toBe(1);
    sink.resolve(1);
    await q.settleAll();
    expect(booked).toEqual([
      [0, 'failed'],
      [1, 'acked'],
    ]);
    expect(q.batches).toBe(0);
  });
});
