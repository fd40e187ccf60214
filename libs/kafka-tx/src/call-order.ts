/**
 * Runs async steps one after another in the order they were asked for, whoever awaits what in
 * between: the idempotent producer's enqueue phase, so that concurrent send() calls cannot
 * interleave their records in a partition.
 */

export type InCallOrder = <T>(step: () => Promise<T>) => Promise<T>;

/**
 * A step starts when every step asked for before it has settled (a failed step does not block the
 * ones after it: its caller gets the rejection).
 */
export function inCallOrder(): InCallOrder {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(step: () => Promise<T>): Promise<T> => {
    const turn = tail.then(step);
    tail = turn.catch(() => undefined);
    return turn;
  };
}
