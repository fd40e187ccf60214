/** The virtual clock of a run: when slot i is due at a steady rate or along a linear ramp, and how many slots the run has. */

export interface ScheduleOptions {
  /** Events per second at the start. */
  rate: number;
  /** If set, the rate moves linearly from `rate` to this over the run. */
  rampTo: number | null;
  durationMs: number | null;
  count: number | null;
}

export class Schedule {
  /** Length of the ramp in ms (the run's duration, or the time `count` slots take at the mean rate). */
  private readonly rampMs: number;
  private readonly r0: number;
  private readonly r1: number;
  /** Slots within the ramp. */
  private readonly rampSlots: number;
  /** Number of planned slots (before draining duplicates), or null for an unbounded run. */
  readonly totalSlots: number | null;
  /** True when the count (not the duration) ends the run: the count is then exact, duplicates included. */
  readonly boundedByCount: boolean;

  constructor(o: ScheduleOptions) {
    if (!(o.rate > 0)) throw new RangeError(`rate must be positive, got ${o.rate}`);
    this.r0 = o.rate / 1000;
    this.r1 = (o.rampTo ?? o.rate) / 1000;
    const meanRate = (this.r0 + this.r1) / 2;
    this.rampMs = o.durationMs ?? (o.count !== null ? o.count / meanRate : 0);
    this.rampSlots = meanRate * this.rampMs;
    const byDuration = o.durationMs === null ? null : Math.floor(this.slotsBefore(o.durationMs));
    const bounds = [byDuration, o.count].filter((x): x is number => x !== null);
    this.totalSlots = bounds.length === 0 ? null : Math.min(...bounds);
    this.boundedByCount = o.count !== null && (byDuration === null || o.count <= byDuration);
  }

  /** Slots due strictly before virtual offset t ms (fractional). */
  private slotsBefore(t: number): number {
    if (t <= this.rampMs)
      return this.r0 * t + ((this.r1 - this.r0) * t * t) / (2 * this.rampMs || 1);
    return this.rampSlots + (t - this.rampMs) * this.r1;
  }

  /** Virtual offset (ms since the run's start, fractional) at which slot i is due; past the ramp the final rate continues. */
  offsetMs(i: number): number {
    if (i >= this.rampSlots) return this.rampMs + (i - this.rampSlots) / this.r1;
    const k = (this.r1 - this.r0) / this.rampMs;
    if (Math.abs(k) < 1e-15) return i / this.r0;
    // Solve r0 t + k t^2 / 2 = i for t >= 0.
    return (-this.r0 + Math.sqrt(this.r0 * this.r0 + 2 * k * i)) / k;
  }

  /** The target rate (events/s) at virtual offset t. */
  rateAt(t: number): number {
    if (t >= this.rampMs) return this.r1 * 1000;
    return (this.r0 + ((this.r1 - this.r0) * t) / this.rampMs) * 1000;
  }
}
