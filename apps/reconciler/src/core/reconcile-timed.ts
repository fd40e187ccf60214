/** The pure core for the timed layers (late stream, windows, sessions): (ledger, ingest times, layer contents) -> layer reports. */

import type { LayerReport } from '@clickstream/contracts';
import { checkAggregateLayer, type AggregateRead } from './check-aggregate';
import { checkLayer } from './check-layer';
import type { LayerRead } from './contents';
import type { LedgerIndex } from './ledger-index';
import type { LedgerEvents } from './ledger-events';
import {
  timedExpectation,
  type IngestTimes,
  type TimedExpectation,
  type ValidPositions,
} from './timed-expectation';
import type { TimedLayer } from './timed-layers';

/** Each event's ingest_time as observed in events.valid, by seq. */
export type IngestRead =
  | { ok: true; times: IngestTimes; positions?: ValidPositions; notes: string[] }
  | { ok: false; error: string };

export type TimedRead =
  | { layer: TimedLayer; kind: 'late'; read: LayerRead }
  | { layer: TimedLayer; kind: 'windows'; read: AggregateRead }
  | { layer: TimedLayer; kind: 'sessions'; read: AggregateRead };

export interface TimedReconcileInput {
  ledger: LedgerIndex;
  events: LedgerEvents;
  ingest: IngestRead;
  latenessMs: number;
  ingestBoundMs: number;
  /** The same ledger problems the event layers get (reconcile.ts): each makes every verdict unknown. */
  ledgerProblems: string[];
  layers: TimedRead[];
  examples?: number;
}

function sample(examples: unknown[]): string {
  return JSON.stringify(examples.slice(0, 3));
}

/** Why the expectation cannot be trusted (unknown), and definite findings about ingest times (inexact). */
function doubts(
  input: TimedReconcileInput,
  exp: TimedExpectation,
): { unknown: string[]; inexact: string[]; info: string } {
  const unknown = [...input.ledgerProblems];
  const inexact: string[] = [];
  if (!input.ingest.ok) unknown.push(`ingest times could not be read: ${input.ingest.error}`);
  else if (exp.unobserved.count > 0)
    unknown.push(
      `${exp.unobserved.count} acknowledged event(s) not (yet) in events.valid, so their ingest_time is unknown, e.g. ${sample(exp.unobserved.examples)}`,
    );
  if (exp.ambiguous.count > 0)
    unknown.push(
      `${exp.ambiguous.count} event(s) with copies in different partitions of events.valid on both sides of the lateness bound (which copy the clean job kept depends on read order), e.g. ${sample(exp.ambiguous.examples)}`,
    );
  if (exp.incomplete.count > 0)
    unknown.push(
      `${exp.incomplete.count} valid ledger row(s) without the event fields the rule needs, e.g. ${sample(exp.incomplete.examples)}`,
    );
  if (exp.ingestMismatch.count > 0)
    inexact.push(
      `${exp.ingestMismatch.count} event(s) whose ingest_time is more than ${input.ingestBoundMs} ms from the ledger's send_time (not the broker's time), e.g. ${sample(exp.ingestMismatch.examples)}`,
    );
  const info = `lateness L = ${input.latenessMs} ms: ${exp.onTime} distinct event(s) on time, ${exp.late} late`;
  return { unknown, inexact, info };
}

export function reconcileTimed(input: TimedReconcileInput): LayerReport[] {
  if (input.layers.length === 0) return [];
  const exp = timedExpectation({
    ledger: input.ledger,
    events: input.events,
    ingest: input.ingest.ok ? input.ingest.times : new Map(),
    positions: input.ingest.ok ? input.ingest.positions : undefined,
    latenessMs: input.latenessMs,
    ingestBoundMs: input.ingestBoundMs,
    examples: input.examples,
  });
  const d = doubts(input, exp);
  return input.layers.map((l) => {
    let report: LayerReport;
    if (l.kind === 'late') {
      // Late events are compared by seq like events.clean: keyed by the first send, event_id checked.
      report = checkLayer({
        layer: l.layer,
        kind: 'clean',
        ledger: input.ledger,
        need: exp.lateNeed,
        read: l.read,
        ledgerProblems: d.unknown,
        examples: input.examples,
      });
      if (d.inexact.length > 0) {
        report.notes.push(...d.inexact);
        if (report.verdict === 'exact') report.verdict = 'inexact';
      }
    } else if (l.kind === 'windows') {
      report = checkAggregateLayer({
        layer: l.layer,
        expected: exp.windows,
        read: l.read,
        unknownBecause: d.unknown,
        inexactBecause: d.inexact,
        examples: input.examples,
      });
    } else {
      report = checkAggregateLayer({
        layer: l.layer,
        expected: exp.sessions,
        read: l.read,
        unknownBecause: d.unknown,
        inexactBecause: d.inexact,
        examples: input.examples,
      });
    }
    report.notes.push(d.info);
    return report;
  });
}
