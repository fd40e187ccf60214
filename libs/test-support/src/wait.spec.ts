import { retry, waitFor, waitForValue } from './wait';

describe('waiting', () => {
  it('waitFor treats a throwing condition as "not yet"', async () => {
    let n = 0;
    await waitFor(
      'the third call',
      () => {
        if (++n < 3) throw new Error('not yet');
        return true;
      },
      1000,
      1,
    );
    expect(n).toBe(3);
  });

  it('waitFor times out naming what it waited for and the last error', async () => {
    await expect(waitFor('never', () => Promise.reject(new Error('down')), 20, 5)).rejects.toThrow(
      /waiting for never \(last error: Error: down\)/,
    );
  });

  it('waitForValue returns the value that satisfied it', async () => {
    let n = 0;
    await expect(
      waitForValue(
        'n >= 2',
        () => Promise.resolve(++n),
        (v) => v >= 2,
        1000,
        1,
      ),
    ).resolves.toBe(2);
  });

  it('retry gives up after its attempts', async () => {
    let calls = 0;
    await expect(
      retry('x', () => Promise.reject(new Error(String(++calls))), 3, 1),
    ).rejects.toThrow(/x failed 3 times, last: Error: 3/);
  });
});
