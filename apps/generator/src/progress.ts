/** The live run's progress: the largest lag behind the schedule, and a report every few seconds (flagged while falling behind). */

import type { Logger } from 'pino';
import type { ProgressFields } from './terminal';

/** Receives each progress report; `behind` while the run falls behind its target rate. */
export type ProgressReporter = (fields: ProgressFields, behind: boolean) => void;

/** The reporter of a run given only a logger: a JSON log line every 5 s, as the generator always did. */
export function logReporter(logger: Logger, runId: string): ProgressReporter {
  return (f, behind) => {
    const fields = {
      run_id: runId,
      sent: f.sent,
      target_rate: f.target_rate,
      achieved_rate: f.achieved_rate,
      lag_ms: f.lag_ms,
      in_flight: f.in_flight,
    };
    if (behind) logger.warn(fields, 'falling behind the target rate');
    else logger.info(fields, 'progress');
  };
}

export class Progress {
  maxLagMs = 0;
  private lastReport: number;
  private reportSends = 0;

  constructor(
    private readonly report: ProgressReporter,
    private readonly o: {
      behindThresholdMs: number;
      /** Target rate (events/s) at an offset of the run's clock. */
      rateAt(offsetMs: number): number;
      /** Start of the run's clock (ms). */
      start: number;
      /** How often to report, ms. */
      everyMs: number;
      /** Sends the run will make, when bounded. */
      total: number | null;
    },
    wallStart: number,
  ) {
    this.lastReport = wallStart;
  }

  /** Records the lag at wall-clock time `now`, after `sent` sends with `inFlight` records awaiting outcomes. */
  observe(
    now: number,
    lagMs: number,
    sent: number,
    inFlight: number,
    faults: Record<string, number>,
  ): void {
    if (lagMs > this.maxLagMs) this.maxLagMs = lagMs;
    if (now - this.lastReport < this.o.everyMs) return;
    const achieved = ((sent - this.reportSends) * 1000) / (now - this.lastReport);
    this.report(
      {
        sent,
        total: this.o.total,
        target_rate: Math.round(this.o.rateAt(now - this.o.start)),
        achieved_rate: Math.round(achieved),
        lag_ms: Math.max(0, Math.round(lagMs)),
        in_flight: inFlight,
        faults,
      },
      lagMs > this.o.behindThresholdMs,
    );
    this.lastReport = now;
    this.reportSends = sent;
  }
}
