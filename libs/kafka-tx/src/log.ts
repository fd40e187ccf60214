/** Logging helpers: librdkafka repeats the same error event every reconnect attempt, so those are rate-limited. */
import type { Logger } from './types';

/** Logs at most one warning per intervalMs, with the number of occurrences it stands for. */
export function rateLimitedWarn(log: Logger, msg: string, intervalMs = 5000): (o: object) => void {
  let last = 0;
  let suppressed = 0;
  return (o) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed++;
      return;
    }
    log.warn({ ...o, suppressed }, msg);
    last = now;
    suppressed = 0;
  };
}
