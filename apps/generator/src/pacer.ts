/** Turns the schedule's due slots into planned sends: which seqs are due by now, and when the run has planned its last one. */

import type { PlannedSend } from './planned';
import type { Planner } from './planner';
import type { Schedule } from './schedule';

export class Pacer {
  /** The next seq to plan (= sends planned so far). */
  seq = 0;
  /** The schedule is exhausted and the planner is draining its pending duplicates. */
  private draining = false;
  /** Nothing is left to plan. */
  done = false;
  /** Send time of the last planned send. */
  lastSendTime: number;

  constructor(
    private readonly schedule: Schedule,
    private readonly planner: Planner,
    /** Start of the run's clock (ms). */
    private readonly start: number,
    /** Live: slots are due on the wall clock and stamped with it; dry: every slot is due at once, stamped with its virtual time. */
    private readonly live: boolean,
  ) {
    this.lastSendTime = start;
  }

  /** Up to `max` sends whose slots are due at wall-clock time `now`. */
  due(now: number, max: number): PlannedSend[] {
    const { schedule, planner, start, live } = this;
    const elapsed = live ? now - start : Number.POSITIVE_INFINITY;
    const batch: PlannedSend[] = [];
    while (batch.length < max) {
      if (!this.draining && schedule.totalSlots !== null && this.seq >= schedule.totalSlots)
        this.draining = true;
      const dueAt = schedule.offsetMs(this.seq);
      if (dueAt > elapsed) break;
      const virtualTime = start + Math.floor(dueAt);
      const slot = {
        seq: this.seq,
        virtualTime,
        sendTime: live ? now : virtualTime,
        remaining:
          schedule.boundedByCount && schedule.totalSlots !== null
            ? schedule.totalSlots - this.seq
            : null,
      };
      const planned = this.draining ? planner.drain(slot) : planner.plan(slot);
      if (planned === null) {
        this.done = true;
        break;
      }
      batch.push(planned);
      this.lastSendTime = slot.sendTime;
      this.seq++;
    }
    return batch;
  }

  /** How far the run is behind its schedule at wall-clock time `now`, ms (negative: ahead). */
  lagMs(now: number): number {
    return now - this.start - this.schedule.offsetMs(this.seq);
  }
}
