/**
 * The probe's two loops: one sends a synthetic event every interval through the front door, the
 * other asks each ClickHouse layer which of them it shows and feeds the answers to the tracker.
 * Dependencies (producer, warehouse, clock, sleep) come in as arguments so tests run on a fake clock.
 */

import type { DeliveryReport, OutRecord } from '@clickstream/kafka-tx';
import type { Warehouse } from '@clickstream/warehouse';
import type { ProbeConfig } from './config';
import { probeEvent, probeRecord } from './event';
import { LAYERS, type LayerSource } from './layers';
import type { ProbeMetrics } from './metrics';
import type { ProbeTracker } from './tracker';
import { WindowRanks } from './windows-layer';

export interface Logger {
  debug(o: object, msg?: string): void;
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
}

export interface ProbeDeps {
  config: Pick<ProbeConfig, 'topic' | 'intervalMs' | 'intervalJitter' | 'pollMs' | 'windowsPollMs'>;
  runId: string;
  logger: Logger;
  /** The front doors, used in turn (probe seq modulo their number), each under its name. */
  frontDoors: readonly { name: string; send(records: OutRecord[]): Promise<DeliveryReport[]> }[];
  warehouse: Pick<Warehouse, 'query'>;
  tracker: ProbeTracker;
  metrics: Pick<ProbeMetrics, 'sent' | 'sendFailed' | 'watchFailed'>;
  clock: () => number;
  /** Uniform in [0, 1): draws each send's jitter. */
  random: () => number;
  /** Resolves after `ms`, or early when the signal aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  signal: AbortSignal;
}

/** Log a repeated failure the first time and then every this many times (a stall must not flood the log). */
const LOG_EVERY = 30;

export async function run(deps: ProbeDeps): Promise<void> {
  deps.logger.info(
    { runId: deps.runId, intervalMs: deps.config.intervalMs, layers: deps.tracker.layers },
    'probe started',
  );
  const ranks = new WindowRanks();
  await Promise.all([sendLoop(deps, ranks), watchLoop(deps, ranks)]);
  deps.logger.info({ runId: deps.runId }, 'probe stopped');
}

/**
 * The gap before the next send: the interval times a uniform factor in [1 - jitter, 1 + jitter].
 * With fixed 5 s gaps the sends could keep one phase against the clean job's 5 s checkpoint, and a
 * minute's samples would then all wait about as long for it; jittered, they spread over its cycle.
 */
export function nextGapMs(
  config: Pick<ProbeConfig, 'intervalMs' | 'intervalJitter'>,
  random: () => number,
): number {
  const factor = 1 + config.intervalJitter * (2 * random() - 1);
  return Math.round(config.intervalMs * factor);
}

async function sendLoop(d: ProbeDeps, ranks: WindowRanks): Promise<void> {
  let seq = 0;
  let failures = 0;
  let next = d.clock();
  while (!d.signal.aborted) {
    const sentAt = d.clock();
    const event = probeEvent(d.runId, seq, sentAt);
    const door = d.frontDoors[seq % d.frontDoors.length];
    if (door === undefined) throw new Error('the probe needs at least one front door');
    d.tracker.sent(seq, sentAt);
    ranks.add(seq, sentAt);
    d.metrics.sent(door.name);
    // Not awaited: a stalled cluster delays the report, never the next probe (one per interval).
    door.send([probeRecord(d.config.topic, event)]).then(
      ([report]) => {
        if (report?.ok) return;
        d.metrics.sendFailed(door.name);
        if (failures++ % LOG_EVERY === 0)
          d.logger.warn(
            { seq: event.seq, frontDoor: door.name, error: report?.error ?? 'no report', failures },
            'probe send failed',
          );
      },
      (error: unknown) => {
        d.metrics.sendFailed(door.name);
        if (failures++ % LOG_EVERY === 0)
          d.logger.warn(
            { seq: event.seq, frontDoor: door.name, error: String(error), failures },
            'probe send failed',
          );
      },
    );
    seq++;
    // Slots missed while the process itself was stopped are skipped, not sent in a burst.
    next = Math.max(next + nextGapMs(d.config, d.random), d.clock());
    await d.sleep(next - d.clock(), d.signal);
  }
}

async function watchLoop(d: ProbeDeps, ranks: WindowRanks): Promise<void> {
  const failures = new Map<string, number>();
  const source: LayerSource = { warehouse: d.warehouse, runId: d.runId, ranks };
  // A layer is asked only while it has unseen events, and the windows layer (seconds behind) less often.
  const lastAsked = new Map<string, number>();
  while (!d.signal.aborted) {
    for (const layer of d.tracker.layers) {
      const from = d.tracker.watchFrom(layer);
      if (from === null) continue;
      const every = layer === 'windows' ? d.config.windowsPollMs : d.config.pollMs;
      const now = d.clock();
      if (now - (lastAsked.get(layer) ?? -Infinity) < every) continue;
      lastAsked.set(layer, now);
      try {
        const seqs = await LAYERS[layer].shownFrom(source, from);
        d.tracker.seen(layer, seqs, d.clock());
        failures.set(layer, 0);
      } catch (error) {
        d.metrics.watchFailed(layer);
        const n = failures.get(layer) ?? 0;
        failures.set(layer, n + 1);
        if (n % LOG_EVERY === 0)
          d.logger.warn(
            { layer, error: String(error), failures: n + 1 },
            'probe watch query failed',
          );
      }
    }
    d.tracker.tick(d.clock());
    await d.sleep(d.config.pollMs, d.signal);
  }
}
