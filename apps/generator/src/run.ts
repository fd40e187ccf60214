/** Runs one generator run: paces slots on the clock, plans each send, hands batches to the sink, and writes the ledger and manifest. */

import type { Logger } from 'pino';
import {
  FAULT_KINDS,
  type FaultKind,
  type FaultRatios,
  type RunManifest,
} from '@clickstream/contracts';
import {
  LEDGER_FILE,
  LedgerWriter,
  runPaths,
  writeManifest,
  type RunPaths,
} from '@clickstream/ledger';
import { Books } from './books';
import { InFlight } from './in-flight';
import { Pacer } from './pacer';
import { Planner } from './planner';
import { logReporter, Progress, type ProgressReporter } from './progress';
import { Schedule } from './schedule';
import type { Sink } from './sink';

export const GENERATOR_VERSION = '0.1.0';

/** Shortest sleep of the pacing loop, ms. */
const MIN_TICK_MS = 5;

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
  /** The clean job's dedup TTL, recorded in the manifest (maxDuplicateDelayMs is at most this). */
  dedupTtlMs: number;
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
  /** Where progress goes, and how often (default: a JSON log line every 5 s). */
  progress?: { report: ProgressReporter; everyMs: number };
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
  // A live run flushes its ledger every second as well as by row count, so that a generator killed
  // mid-run leaves a ledger that can be reconciled up to its last batch. A dry run flushes by row
  // count only: its batches, and so its bytes, must not depend on the wall clock.
  const books = new Books(LedgerWriter.open(paths.ledger, { flushEveryMs: sink.live ? 1000 : 0 }));
  const inFlight = new InFlight(books);
  const wallStart = clock();
  const start = o.startTime;
  // Written now and again at the end: a run cut short still says what it was, and that it did not finish.
  writeManifest(paths.manifest, {
    ...manifestOf(o, emptySummary(o, sink.live, paths), sink.live, start, start),
    status: 'running',
  });
  const pacer = new Pacer(schedule, planner, start, sink.live);
  const progress = new Progress(
    deps.progress?.report ?? logReporter(logger, o.runId),
    {
      behindThresholdMs: o.behindThresholdMs,
      rateAt: (t) => schedule.rateAt(t),
      start,
      everyMs: deps.progress?.everyMs ?? 5000,
      total: schedule.totalSlots,
    },
    wallStart,
  );

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

  while (!pacer.done && !signal?.aborted) {
    const batch = pacer.due(clock(), o.maxBatch);
    if (batch.length > 0) inFlight.send(sink, batch);
    inFlight.settleFinished();
    await inFlight.settleDownTo(o.maxInFlight);

    if (sink.live && !pacer.done) {
      const lag = pacer.lagMs(clock());
      progress.observe(clock(), lag, pacer.seq, inFlight.records, books.byFault);
      // Waking at most every MIN_TICK_MS batches a few ms of slots per producer call (the producer lingers
      // 5 ms anyway): waking per slot cost a third of a core at 2,000/s for nothing.
      if (lag < 0) await deps.sleep(Math.min(50, Math.max(MIN_TICK_MS, -lag)));
    } else if (!pacer.done) {
      // Let signals and delivery callbacks in between batches of a dry run.
      await deps.sleep(0);
    }
  }
  const stoppedEarly = !pacer.done && (signal?.aborted ?? false);
  await inFlight.settleAll();
  const wallEnd = clock();
  await books.ledger.close();

  const spanMs = Math.max(1, pacer.lastSendTime - start);
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
    max_lag_ms: Math.round(progress.maxLagMs),
    fell_behind: progress.maxLagMs > o.behindThresholdMs,
    stopped_early: stoppedEarly,
    unsent_duplicates: planner.pendingDuplicates,
    ledger: paths.ledger,
    manifest: paths.manifest,
  };
  writeManifest(paths.manifest, {
    ...manifestOf(o, summary, sink.live, start, pacer.lastSendTime),
    status: 'complete',
  });
  warnAboutShortfalls(logger, o, summary);
  return summary;
}

function warnAboutShortfalls(logger: Logger, o: RunOptions, summary: RunSummary): void {
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
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** The summary of a run that has not sent anything yet (the manifest written at its start). */
function emptySummary(o: RunOptions, live: boolean, paths: RunPaths): RunSummary {
  return {
    run_id: o.runId,
    dry_run: !live,
    sends: 0,
    acked: 0,
    failed: 0,
    not_sent: 0,
    by_fault: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as RunSummary['by_fault'],
    target_rate: o.rate,
    achieved_rate: 0,
    wall_rate: 0,
    max_lag_ms: 0,
    fell_behind: false,
    stopped_early: false,
    unsent_duplicates: 0,
    ledger: paths.ledger,
    manifest: paths.manifest,
  };
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
    dedup_ttl_ms: o.dedupTtlMs,
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
    ledger_file: LEDGER_FILE,
  };
}
