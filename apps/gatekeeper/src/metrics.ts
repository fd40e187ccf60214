/** Prometheus metrics of the gatekeeper, on their own registry so tests can build as many as they like. */

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { REJECT_REASONS, type RejectReason } from '@clickstream/contracts';

export interface GatekeeperMetrics {
  registry: Registry;
  recordsIn: Counter;
  valid: Counter;
  deadLettered: Counter<'reason'>;
  committed: Counter;
  aborted: Counter;
  fenced: Counter;
  loopRestarts: Counter;
  batchSeconds: Histogram;
  batchRecords: Histogram;
  lag: Gauge;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): GatekeeperMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true)
    collectDefaultMetrics({ register: registry, prefix: 'gatekeeper_' });
  const registers = [registry];
  const metrics: GatekeeperMetrics = {
    registry,
    recordsIn: new Counter({
      name: 'gatekeeper_records_in_total',
      help: 'Raw records consumed (a retried batch counts again)',
      registers,
    }),
    valid: new Counter({
      name: 'gatekeeper_records_valid_total',
      help: 'Records committed to the valid topic',
      registers,
    }),
    deadLettered: new Counter({
      name: 'gatekeeper_records_dead_lettered_total',
      help: 'Records committed to the dead-letter topic, by reason',
      labelNames: ['reason'],
      registers,
    }),
    committed: new Counter({
      name: 'gatekeeper_transactions_committed_total',
      help: 'Transactions committed',
      registers,
    }),
    aborted: new Counter({
      name: 'gatekeeper_transactions_aborted_total',
      help: 'Transactions aborted (the batch is retried)',
      registers,
    }),
    fenced: new Counter({
      name: 'gatekeeper_fenced_total',
      help: 'Times this instance was fenced by a newer producer with its transactional id',
      registers,
    }),
    loopRestarts: new Counter({
      name: 'gatekeeper_loop_restarts_total',
      help: 'Times the Kafka loop failed and was restarted in-process',
      registers,
    }),
    batchSeconds: new Histogram({
      name: 'gatekeeper_batch_duration_seconds',
      help: 'Duration of a committed transaction, begin to commit done',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    batchRecords: new Histogram({
      name: 'gatekeeper_batch_records',
      help: 'Input records per committed transaction',
      buckets: [1, 10, 50, 100, 250, 500, 1000, 2500, 5000],
      registers,
    }),
    lag: new Gauge({
      name: 'gatekeeper_consumer_lag',
      help: 'Records of the raw topic not yet committed by the group (-1 until first known)',
      registers,
    }),
  };
  // Every reason is exported from the start, so a rate() over a reason that has not happened yet is 0, not absent.
  for (const reason of REJECT_REASONS) metrics.deadLettered.inc({ reason }, 0);
  metrics.lag.set(-1);
  return metrics;
}

/** Outcomes of the batch in flight: counted only when its transaction commits, so retries never double-count. */
export class PendingTally {
  private valid = 0;
  private readonly dead = new Map<RejectReason, number>();

  addValid(): void {
    this.valid++;
  }

  addDeadLetter(reason: RejectReason): void {
    this.dead.set(reason, (this.dead.get(reason) ?? 0) + 1);
  }

  commitTo(metrics: GatekeeperMetrics): void {
    if (this.valid > 0) metrics.valid.inc(this.valid);
    for (const [reason, n] of this.dead) metrics.deadLettered.inc({ reason }, n);
    this.reset();
  }

  reset(): void {
    this.valid = 0;
    this.dead.clear();
  }
}
