/**
 * Session merges (issue #12): three sends of one fresh session id that make two sessions and then
 * merge them with an out-of-order event. A at time t; B more than the 30 s session gap later (a
 * second session); C sent after B with event_time t + gap - 1 ms, still within L of its send, so
 * it is on time and bridges the gap: both sessions become one, and the older keys are retracted.
 */

import { SESSION_GAP_MS } from '@clickstream/contracts';

export interface ScheduledMerge {
  /** Virtual time at which the send is due. */
  due: number;
  step: 'second_session' | 'bridge';
  sessionId: string;
  /** Event time of the bridge (fixed by A); null for the second session's event (its send time). */
  eventTime: number | null;
}

/** When B and C are due after A, and C's event time, for lateness bound L. */
export function mergePlan(
  aVirtualTime: number,
  aEventTime: number,
  latenessMs: number,
): { secondDue: number; bridgeDue: number; bridgeEventTime: number } {
  // B lands d after the gap; C is sent d/2 after B, so C's event time is about 1.5 d behind its
  // send: 0.75 L, which leaves L/4 for pacing lag and broker latency.
  const d = Math.floor(latenessMs / 2);
  const secondDue = aVirtualTime + SESSION_GAP_MS + d;
  return {
    secondDue,
    bridgeDue: secondDue + Math.max(1, Math.floor(d / 2)),
    bridgeEventTime: aEventTime + SESSION_GAP_MS - 1,
  };
}

/** Scheduled merge sends, earliest due first (few at a time: a plain sorted array). */
export class MergeQueue {
  private readonly items: ScheduledMerge[] = [];

  get size(): number {
    return this.items.length;
  }

  push(m: ScheduledMerge): void {
    let i = this.items.length;
    while (i > 0 && (this.items[i - 1] as ScheduledMerge).due > m.due) i--;
    this.items.splice(i, 0, m);
  }

  peek(): ScheduledMerge | undefined {
    return this.items[0];
  }

  pop(): ScheduledMerge | undefined {
    return this.items.shift();
  }
}
