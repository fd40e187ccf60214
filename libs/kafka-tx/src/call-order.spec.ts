import { inCallOrder } from './call-order';

/** An enqueue loop that yields between records, as the producer's does (an await per record). */
async function enqueueAll(out: number[], records: number[], pauseEvery = 1): Promise<void> {
  for (let i = 0; i < records.length; i++) {
    out.push(records[i] as number);
    if (i % pauseEvery === 0) await new Promise<void>((r) => setImmediate(r));
  }
}

describe('inCallOrder', () => {
  it('without it, two concurrent loops interleave their records (the bug it prevents)', async () => {
    const out: number[] = [];
    await Promise.all([enqueueAll(out, [1, 2, 3]), enqueueAll(out, [4, 5, 6])]);
    expect(out).not.toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('runs concurrent steps whole, one after another, in call order', async () => {
    const order = inCallOrder();
    const out: number[] = [];
    await Promise.all([
      order(() => enqueueAll(out, [1, 2, 3])),
      order(() => enqueueAll(out, [4, 5, 6])),
      order(() => enqueueAll(out, [7])),
    ]);
    expect(out).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('passes each step its own result, and a failed step neither blocks nor fails the next', async () => {
    const order = inCallOrder();
    const failed = order(() => Promise.reject(new Error('refused')));
    const next = order(() => Promise.resolve('next'));
    await expect(failed).rejects.toThrow('refused');
    await expect(next).resolves.toBe('next');
  });
});
