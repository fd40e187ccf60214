/** Runs one generator run: paces slots on the clock, plans each send, hands batches to the sink, and writes the ledger and manifest. */

import {
  FAULT_KINDS,
  type FaultKind,
  type FaultRatios,
  type RunManifest,
} from '@clickstream/contracts';
import { LedgerWriter, runPaths, writeManifest, type RunPaths } from '@clickstream/ledger';
import { ledgerRow, type PlannedSend } from './planned';
import { Planner } from './planner';
import { Schedule } from './schedule';
import type { Sink, SinkOutcome } from './sink';

export const GENERATOR_VERSION = '0.1.0';

/** Shortest sleep of the pacing loop, ms. */
const MIN_TICK_MS = 5;

/** A pino-compatible logger; the generator's modules never create one. */
export interface Logger {
  debug(o: object, msg?: string): void;
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
  error(o: object, msg?: string): void;
}

export interface RunOptions {
  seed: number;
  runId: string;
  /** Start of the run's clock (ms). Live runs default to now; dry runs need it fixed for byte-identical output. */
  startTime: number;
  rate: number;
  rampTo: number | null;
  durationMs: number | null;
  count: number | null;
  latenessMs: number;
  ratios: FaultRatios;
  v1Share: number;
  sessions: number;
  maxDuplicateDelayMs: number;
  topic: string;
  bootstrap: string | null;
  resultsDir: string;
  /** Most records handed to the sink in one call. */
  maxBatch: number;
  /** Most records awaiting their delivery outcome; beyond it the generator waits (and falls behind, loudly). */
  maxInFlight: number;
  /** Lag behind the schedule beyond which the run counts as falling behind, ms. */
  behindThresholdMs: number;
}

export interface RunDeps {
  options: RunOptions;
  sink: Sink;
  logger: Logger;
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Abort to stop sending: what was sent is flushed and written to the ledger. */
  signal?: AbortSignal;
}

export interface RunSummary {
  run_id: string;
  dry_run: boolean;
  sends: number;
  acked: number;
  failed: number;
  not_sent: number;
  by_fault: Record<FaultKind, number>;
  target_rate: number;
  /** Sends per second of the run's own clock (virtual for a dry run, wall clock for a live run). */
  achieved_rate: number;
  /** Sends per second of wall-clock time spent generating (for a dry run, how fast it generates). */
  wall_rate: number;
  max_lag_ms: number;
  fell_behind: boolean;
  stopped_early: boolean;
  /** Duplicates that were scheduled but never sent because the run was stopped; they never got a seq. */
  unsent_duplicates: number;
  ledger: string;
  manifest: string;
}

interface InFlight {
  sends: PlannedSend[];
  promise: Promise<SinkOutcome[]>;
  /** Set when the promise resolves, so finished batches are booked without waiting on the rest. */
  outcomes: SinkOutcome[] | null;
}

/** Counters and the ledger: every planned send is written exactly once, with its outcome, in seq order. */
class Books {
  readonly byFault = Object.fromEntries(FAULT_KINDS.map((f) => [f, 0])) as Record<
    FaultKind,
    number
  >;
  readonly delivery = { acked: 0, failed: 0, not_sent: 0 };
  sends = 0;

  constructor(readonly ledger: LedgerWriter) {}

  record(sends: readonly PlannedSend[], outcomes: readonly SinkOutcome[]): void {
    for (let i = 0; i < sends.length; i++) {
      const s = sends[i]!;
      const o = outcomes[i] ?? {
        delivery: 'failed' as const,
        partition: null,
        offset: null,
        error: 'sink returned no outcome',
      };
      const row = ledgerRow(s.row, o);
      this.ledger.append(row);
      this.sends++;
      this.byFault[row.fault]++;
      this.delivery[o.delivery]++;
    }
  }
}

export async function run(deps: RunDeps): Promise<RunSummary> {
  const { options: o, sink, logger, clock, signal } = deps;
  const paths: RunPaths = runPaths(o.resultsDir, o.runId);
  const schedule = new Schedule({
    rate: o.rate,
    rampTo: o.rampTo,
    durationMs: o.durationMs,
    count: o.count,
  });
  const planner = new Planner({
    seed: o.seed,
    runId: o.runId,
    latenessMs: o.latenessMs,
    ratios: o.ratios,
    v1Share: o.v1Share,
    sessions: o.sessions,
    maxDuplicateDelayMs: o.maxDuplicateDelayMs,
  });
  const books = new Books(LedgerWriter.open(paths.ledger));
  const inFlight: InFlight[] = [];
  const wallStart = clock();
  const start = o.startTime;
  let seq = 0;
  let draining = false;
  let done = false;
  let maxLag = 0;
  let lastSendTime = start;
  let lastReport = wallStart;
  let reportSends = 0;

  logger.info(
    {
      run_id: o.runId,
      live: sink.live,
      rate: o.rate,
      ramp_to: o.rampTo,
      duration_ms: o.durationMs,
      count: o.count,
      slots: schedule.totalSlots,
      ledger: paths.ledger,
    },
    'run starting',
  );

  let inFlightRecords = 0;
  const settleOldest = async (): Promise<void> => {
    const f = inFlight.shift();
    if (!f) return;
    books.record(f.sends, f.outcomes ?? (await f.promise));
    inFlightRecords -= f.sends.length;
  };
  /** Books every batch at the head of the queue that already has its outcomes (the ledger stays in seq order). */
  const settleFinished = (): void => {
    while (inFlight.length > 0 && inFlight[0]!.outcomes !== null) {
      const f = inFlight.shift()!;
      books.record(f.sends, f.outcomes!);
      inFlightRecords -= f.sends.length;
    }
  };

  while (!done && !signal?.aborted) {
    const now = clock();
    // A dry run has no wall clock to keep: every slot is due at once, stamped with its virtual time.
    const elapsed = sink.live ? now - start : Number.POSITIVE_INFINITY;
    const batch: PlannedSend[] = [];
    while (batch.length < o.maxBatch) {
      if (!draining && schedule.totalSlots !== null && seq >= schedule.totalSlots) draining = true;
      const due = schedule.offsetMs(seq);
      if (due > elapsed) break;
      const virtualTime = start + Math.floor(due);
      const slot = {
        seq,
        virtualTime,
        sendTime: sink.live ? now : virtualTime,
        remaining:
          schedule.boundedByCount && schedule.totalSlots !== null
            ? schedule.totalSlots - seq
            : null,
      };
      const planned = draining ? planner.drain(slot) : planner.plan(slot);
      if (planned === null) {
        done = true;
        break;
      }
      batch.push(planned);
      lastSendTime = slot.sendTime;
      seq++;
    }
    if (batch.length > 0) {
      // A sink must not reject; if one does anyway, its records are booked as failed, never dropped.
      const promise = sink.send(batch).catch((err: unknown) => {
        const error = `sink failed: ${err instanceof Error ? err.message : String(err)}`;
        return batch.map((): SinkOutcome => ({
          delivery: 'failed',
          partition: null,
          offset: null,
          error,
        }));
      });
      const f: InFlight = { sends: batch, promise, outcomes: null };
      void promise.then((outcomes) => {
        f.outcomes = outcomes;
      });
      inFlight.push(f);
      inFlightRecords += batch.length;
    }
    settleFinished();
    while (inFlightRecords > o.maxInFlight) await settleOldest();

    if (sink.live && !done) {
      const lag = clock() - start - schedule.offsetMs(seq);
      if (lag > maxLag) maxLag = lag;
      const t = clock();
      if (t - lastReport >= 5000) {
        const achieved = ((seq - reportSends) * 1000) / (t - lastReport);
        const target = schedule.rateAt(t - start);
        const fields = {
          run_id: o.runId,
          sent: seq,
          target_rate: Math.round(target),
          achieved_rate: Math.round(achieved),
          lag_ms: Math.max(0, Math.round(lag)),
          in_flight: inFlightRecords,
        };
        if (lag > o.behindThresholdMs) logger.warn(fields, 'falling behind the target rate');
        else logger.info(fields, 'progress');
        lastReport = t;
        reportSends = seq;
      }
      // Waking at most every MIN_TICK_MS batches a few ms of slots per producer call (the producer lingers
      // 5 ms anyway): waking per slot cost a third of a core at 2,000/s for nothing.
      if (lag < 0) await deps.sleep(Math.min(50, Math.max(MIN_TICK_MS, -lag)));
    } else if (!done) {
      // Let signals and delivery callbacks in between batches of a dry run.
      await deps.sleep(0);
    }
  }
  const stoppedEarly = !done && (signal?.aborted ?? false);
  while (inFlight.length > 0) await settleOldest();
  const wallEnd = clock();
  await books.ledger.close();

  const spanMs = Math.max(1, lastSendTime - start);
  const summary: RunSummary = {
    run_id: o.runId,
    dry_run: !sink.live,
    sends: books.sends,
    acked: books.delivery.acked,
    failed: books.delivery.failed,
    not_sent: books.delivery.not_sent,
    by_fault: books.byFault,
    target_rate: o.rate,
    achieved_rate: round2((books.sends * 1000) / spanMs),
    wall_rate: round2((books.sends * 1000) / Math.max(1, wallEnd - wallStart)),
    max_lag_ms: Math.round(maxLag),
    fell_behind: maxLag > o.behindThresholdMs,
    stopped_early: stoppedEarly,
    unsent_duplicates: planner.pendingDuplicates,
    ledger: paths.ledger,
    manifest: paths.manifest,
  };
  writeManifest(paths.manifest, manifestOf(o, summary, sink.live, start, lastSendTime));
  if (summary.fell_behind)
    logger.warn(
      {
        run_id: o.runId,
        max_lag_ms: summary.max_lag_ms,
        target_rate: o.rate,
        achieved_rate: summary.achieved_rate,
      },
      'run fell behind the target rate',
    );
  if (summary.failed > 0)
    logger.warn(
      { run_id: o.runId, failed: summary.failed },
      'some sends failed after the client retries; they are in the ledger as failed',
    );
  return summary;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

function manifestOf(
  o: RunOptions,
  s: RunSummary,
  live: boolean,
  startedAt: number,
  endedAt: number,
): RunManifest {
  return {
    run_id: o.runId,
    seed: o.seed,
    generator_version: GENERATOR_VERSION,
    dry_run: !live,
    target_rate: o.rate,
    ramp_to_rate: o.rampTo,
    duration_ms: o.durationMs,
    total_events: o.count,
    lateness_ms: o.latenessMs,
    fault_ratios: o.ratios,
    topic: o.topic,
    bootstrap: live ? o.bootstrap : null,
    started_at: startedAt,
    ended_at: endedAt,
    achieved_rate: s.achieved_rate,
    counts: {
      sends: s.sends,
      acked: s.acked,
      failed: s.failed,
      not_sent: s.not_sent,
      by_fault: s.by_fault,
    },
    ledger_file: 'ledger.arrow',
  };
}
