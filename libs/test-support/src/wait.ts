/** Waiting in integration tests: for a condition, for a value, or through transient errors (other engineers' tests kill brokers on the shared stack). */

import { setTimeout as sleepFor } from 'node:timers/promises';

export function sleep(ms: number): Promise<void> {
  return sleepFor(ms);
}

/**
 * Waits until cond() holds, polling; a throwing cond counts as "not yet", and its last error is in
 * the timeout message.
 */
export async function waitFor(
  what: string,
  cond: () => Promise<boolean> | boolean,
  timeoutMs = 120_000,
  everyMs = 500,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      if (await cond()) return;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what} (last error: ${String(lastError)})`,
      );
    }
    await sleep(everyMs);
  }
}

/** Polls `probe` until `done` holds for its value; returns that value, or throws after timeoutMs naming the last value and error. */
export async function waitForValue<T>(
  what: string,
  probe: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs: number,
  everyMs = 2000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let error: unknown;
  while (Date.now() < deadline) {
    try {
      last = await probe();
      if (done(last)) return last;
    } catch (e) {
      error = e;
    }
    await sleep(everyMs);
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}; last value ${JSON.stringify(last)}, last error ${String(error)}`,
  );
}

/** Retries `f` on errors (an admin call times out now and then while a broker restarts). */
export async function retry<T>(
  what: string,
  f: () => Promise<T>,
  attempts = 6,
  delayMs = 5000,
): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await f();
    } catch (e) {
      if (i >= attempts) throw new Error(`${what} failed ${attempts} times, last: ${String(e)}`);
      await sleep(delayMs);
    }
  }
}
