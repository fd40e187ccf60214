/** The gatekeeper's health: one tracker that run(), the loop and the watchdog report to, and that /healthz reads. */

export type Phase = 'starting' | 'running' | 'stuck' | 'stopping' | 'stopped' | 'fenced' | 'failed';

/** What /healthz reports. */
export interface Health {
  phase: Phase;
  instanceId: string;
  transactionalId: string;
  startedAt: number;
  lastCommitAt: number | null;
  /** When the batch in flight was collected; null between transactions. */
  inFlightSince: number | null;
  commits: number;
  aborts: number;
  loopRestarts: number;
}

/** Healthy while the loop may still make progress; 503 once it is stuck, has stopped, been fenced or failed. */
export function healthStatus(health: Health): number {
  return health.phase === 'starting' || health.phase === 'running' ? 200 : 503;
}

/** The only writer of the gatekeeper's Health: each event of the loop's life is one method. */
export class HealthTracker {
  private readonly health: Health;

  constructor(
    ids: { instanceId: string; transactionalId: string },
    private readonly now: () => number = Date.now,
  ) {
    this.health = {
      phase: 'starting',
      instanceId: ids.instanceId,
      transactionalId: ids.transactionalId,
      startedAt: now(),
      lastCommitAt: null,
      inFlightSince: null,
      commits: 0,
      aborts: 0,
      loopRestarts: 0,
    };
  }

  /** A copy of the current record. */
  snapshot(): Health {
    return { ...this.health };
  }

  /** What the status server serves on /healthz. */
  check(): { status: number; body: Health } {
    return { status: healthStatus(this.health), body: this.snapshot() };
  }

  get commits(): number {
    return this.health.commits;
  }

  /** How long the batch in flight has been open, or null between transactions. */
  inFlightMs(): number | null {
    const since = this.health.inFlightSince;
    return since === null ? null : this.now() - since;
  }

  loopStarted(): void {
    this.health.phase = 'running';
  }

  batchCollected(): void {
    this.health.inFlightSince = this.now();
  }

  committed(): void {
    this.health.commits++;
    this.health.lastCommitAt = this.now();
    this.health.inFlightSince = null;
  }

  aborted(): void {
    this.health.aborts++;
    this.health.inFlightSince = null;
  }

  /** The loop failed and will be restarted; whatever it had in flight is gone. */
  loopFailed(): void {
    this.health.inFlightSince = null;
    this.health.loopRestarts++;
  }

  /** The watchdog saw one transaction in flight for too long. */
  stuck(): void {
    this.health.phase = 'stuck';
  }

  ended(reason: 'fenced' | 'stopped'): void {
    this.health.phase = reason;
  }

  failed(): void {
    this.health.phase = 'failed';
  }
}
