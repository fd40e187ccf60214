/** Test helpers shared by the generator's unit and integration specs: default options and a sink that keeps what it was given. */

import pino from 'pino';
import type { FaultRatios } from '@clickstream/contracts';
import type { RunOptions } from '../src/run';
import type { Sink, SinkOutcome, SinkRecord } from '../src/sink';

export const RATIOS: FaultRatios = {
  duplicate: 0.04,
  out_of_order: 0.06,
  late: 0.03,
  poison_random_bytes: 0.01,
  poison_truncated: 0.01,
  poison_unknown_fingerprint: 0.01,
  poison_bad_magic: 0.01,
  poison_contract: 0.02,
  poison_malformed: 0.01,
};

export function options(over: Partial<RunOptions> & { resultsDir: string }): RunOptions {
  return {
    seed: 42,
    runId: 'gen-test',
    startTime: 1_764_000_000_000,
    rate: 1000,
    rampTo: null,
    durationMs: null,
    count: 5000,
    latenessMs: 5000,
    ratios: RATIOS,
    v1Share: 0.2,
    sessions: 200,
    maxDuplicateDelayMs: 5 * 60_000,
    dedupTtlMs: 3_600_000,
    topic: 'clickstream.raw',
    bootstrap: null,
    maxBatch: 500,
    maxInFlight: 2000,
    behindThresholdMs: 1000,
    ...over,
  };
}

/** A dry sink that also keeps every record, to check the bytes against the ledger. */
export function capturingSink(
  live = false,
  outcome?: (r: SinkRecord, i: number) => SinkOutcome,
): Sink & { records: SinkRecord[] } {
  const records: SinkRecord[] = [];
  return {
    live,
    records,
    send(batch) {
      const out = batch.map((r) => {
        const i = records.length;
        records.push(r);
        return outcome
          ? outcome(r, i)
          : { delivery: 'not_sent' as const, partition: null, offset: null, error: null };
      });
      return Promise.resolve(out);
    },
    close: () => Promise.resolve(),
  };
}

export const silentLogger = pino({ level: 'silent' });
