/** The live run's progress: the largest lag behind the schedule, and a log line every few seconds (a warning while falling behind). */

import type { Logger } from 'pino';

/** How often progress is logged, ms. */
const REPORT_EVERY_MS = 5000;

export class Progress {
  maxLagMs = 0;
  private lastReport: number;
  private reportSends = 0;

  constructor(
    private readonly logger: Logger,
    private readonly o: {
      runId: string;
      behindThresholdMs: number;
      /** Target rate (events/s) at an offset of the run's clock. */
      rateAt(offsetMs: number): number;
      /** Start of the run's clock (ms). */
      start: number;
    },
    wallStart: number,
  ) {
    this.lastReport = wallStart;
  }

  /** Records the lag at wall-clock time `now`, after `sent` sends with `inFlight` records awaiting outcomes. */
  observe(now: number, lagMs: number, sent: number, inFlight: number): void {
    if (lagMs > this.maxLagMs) this.maxLagMs = lagMs;
    if (now - this.lastReport < REPORT_EVERY_MS) return;
    const achieved = ((sent - this.reportSends) * 1000) / (now - this.lastReport);
    const fields = {
      run_id: this.o.runId,
      sent,
      target_rate: Math.round(this.o.rateAt(now - this.o.start)),
      achieved_rate: Math.round(achieved),
      lag_ms: Math.max(0, Math.round(lagMs)),
      in_flight: inFlight,
    };
    if (lagMs > this.o.behindThresholdMs)
      this.logger.warn(fields, 'falling behind the target rate');
    else this.logger.info(fields, 'progress');
    this.lastReport = now;
    this.reportSends = sent;
  }
}
