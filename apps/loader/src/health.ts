/** What /healthz reports: healthy while consuming and the last flush attempt did not fail. */

export interface Health {
  phase: 'starting' | 'running' | 'stopping';
  /** True from a failed flush attempt until the next successful one. */
  failing: boolean;
  lastFlushAt: number | null;
}

export function newHealth(): Health {
  return { phase: 'starting', failing: false, lastFlushAt: null };
}

export function isHealthy(h: Health): boolean {
  return h.phase === 'running' && !h.failing;
}
