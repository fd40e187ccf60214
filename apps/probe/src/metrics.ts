/** The probe's Prometheus metrics (prom-client): freshness per layer, age of the newest event seen, SLO counters. */

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LAYER_NAMES, type LayerName } from './layers';
import type { ProbeTracker, TrackerHooks } from './tracker';

/**
 * Freshness buckets, seconds: half-second steps up to 3 s (the clean layer's p99 goal at 1,000 events/s is 3 s, and
 * a quantile is interpolated within its bucket), one-second steps to the 10 s SLO threshold, coarse beyond it.
 */
export const FRESHNESS_BUCKETS = [
  0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 30, 45, 60, 120, 300,
];

export interface ProbeMetrics {
  hooks: TrackerHooks;
  sent(frontDoor: string): void;
  sendFailed(frontDoor: string): void;
  watchFailed(layer: LayerName): void;
  /** The gauges read the tracker at each scrape, so the age keeps rising while nothing arrives. */
  attach(tracker: ProbeTracker, clock: () => number): void;
}

export function createMetrics(registry: Registry): ProbeMetrics {
  const registers = [registry];
  const freshness = new Histogram({
    name: 'probe_freshness_seconds',
    help: 'Time from a probe event send to its first sight in the layer (ClickHouse table)',
    labelNames: ['layer'],
    buckets: FRESHNESS_BUCKETS,
    registers,
  });
  const judged = new Counter({
    name: 'probe_slo_events_total',
    help: 'Probe events whose SLO verdict is in: seen within the threshold, or past it unseen',
    labelNames: ['layer'],
    registers,
  });
  const good = new Counter({
    name: 'probe_slo_good_total',
    help: 'Probe events seen in the layer within the SLO threshold',
    labelNames: ['layer'],
    registers,
  });
  const forgotten = new Counter({
    name: 'probe_lost_total',
    help: 'Probe events the layer never showed within --forget-after-ms',
    labelNames: ['layer'],
    registers,
  });
  const sent = new Counter({
    name: 'probe_sent_total',
    help: 'Probe events handed to a front door (kafka, http)',
    labelNames: ['front_door'],
    registers,
  });
  const sendFailures = new Counter({
    name: 'probe_send_failures_total',
    help: 'Probe events whose delivery failed (they stay watched and count against the SLO)',
    labelNames: ['front_door'],
    registers,
  });
  const watchFailures = new Counter({
    name: 'probe_watch_failures_total',
    help: 'ClickHouse queries of the probe that failed',
    labelNames: ['layer'],
    registers,
  });
  // Every series exists from the start, so rates and absent() behave before the first event.
  for (const layer of LAYER_NAMES) {
    for (const c of [judged, good, forgotten, watchFailures]) c.inc({ layer }, 0);
  }

  return {
    hooks: {
      onSeen: (layer, ms) => freshness.observe({ layer }, ms / 1000),
      onJudged: (layer, ok) => {
        judged.inc({ layer });
        if (ok) good.inc({ layer });
      },
      onForgotten: (layer) => forgotten.inc({ layer }),
    },
    sent: (frontDoor) => sent.inc({ front_door: frontDoor }),
    sendFailed: (frontDoor) => sendFailures.inc({ front_door: frontDoor }),
    watchFailed: (layer) => watchFailures.inc({ layer }),
    attach(tracker, clock) {
      new Gauge({
        name: 'probe_newest_seen_age_seconds',
        help: 'Age of the newest probe event the layer has shown (now minus its send time); rises during a stall',
        labelNames: ['layer'],
        registers,
        collect() {
          const now = clock();
          for (const layer of tracker.layers)
            this.set({ layer }, tracker.newestSeenAgeMs(layer, now) / 1000);
        },
      });
      new Gauge({
        name: 'probe_outstanding_events',
        help: 'Probe events sent and not yet shown by the layer',
        labelNames: ['layer'],
        registers,
        collect() {
          for (const layer of tracker.layers) this.set({ layer }, tracker.outstanding(layer));
        },
      });
    },
  };
}
