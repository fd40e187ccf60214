/**
 * Compares an aggregate layer (window or session rows, the latest version per key) with the rows
 * the ledger implies: a pure checker. Every final, non-retracted row must equal its expected row;
 * a row that is not final yet makes the layer unknown (never exact).
 */

import type { LayerName, LayerReport } from '@clickstream/contracts';
import { DEFAULT_EXAMPLES, EvidenceCollector } from './evidence';

/** One key's latest emission as a layer holds it. */
export interface ObservedAggregate<V> {
  key: string;
  values: V;
  version: number;
  isFinal: boolean;
  retracted: boolean;
}

export interface AggregateContents<V> {
  /** One row per key (latest version); a key twice is reported as duplicated. */
  rows: ObservedAggregate<V>[];
  /** Keys whose latest version was emitted twice with different values (Kafka only). */
  conflicts: { key: string; version: number }[];
  /** Records of this layer that do not decode (examples). */
  undecodable: { count: number; examples: unknown[] };
  /** Rows or records of other runs, ignored. */
  foreign: number;
  notes: string[];
  readMs: number;
}

export type AggregateRead<V> =
  { ok: true; contents: AggregateContents<V> } | { ok: false; error: string; readMs: number };

export interface AggregateCheckInput<V> {
  layer: LayerName;
  expected: ReadonlyMap<string, V>;
  read: AggregateRead<V>;
  /** Problems that make the verdict unknown whatever the layer holds (ledger problems, unobserved ingest times). */
  unknownBecause: string[];
  /** Definite problems found outside the layer that make it inexact (ingest time not the broker's). */
  inexactBecause: string[];
  examples?: number;
}

const EMPTY = { count: 0, examples: [] };

function sameValues(a: unknown, b: unknown): boolean {
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => (a as Record<string, unknown>)[k] === (b as Record<string, unknown>)[k]);
}

export function checkAggregateLayer<V>(input: AggregateCheckInput<V>): LayerReport {
  const { layer, expected, read } = input;
  const limit = input.examples ?? DEFAULT_EXAMPLES;
  if (!read.ok) {
    return {
      layer,
      verdict: 'unknown',
      expected: expected.size,
      observed: 0,
      missing: EMPTY,
      duplicated: EMPTY,
      unexpected: EMPTY,
      differing: EMPTY,
      notes: [
        `layer could not be read: ${read.error}`,
        ...input.unknownBecause,
        ...input.inexactBecause,
      ],
      read_ms: read.readMs,
    };
  }
  const c = read.contents;
  const missing = new EvidenceCollector(limit);
  const duplicated = new EvidenceCollector(limit);
  const unexpected = new EvidenceCollector(limit);
  const differing = new EvidenceCollector(limit);
  const notFinal = new EvidenceCollector(limit);
  let retracted = 0;
  const live = new Map<string, ObservedAggregate<V>>();
  for (const row of c.rows) {
    if (row.retracted) {
      retracted++;
      continue;
    }
    if (live.has(row.key)) {
      duplicated.add({ key: row.key, why: 'key held twice' });
      continue;
    }
    live.set(row.key, row);
  }
  for (const conflict of c.conflicts)
    duplicated.add({ ...conflict, why: 'two emissions of the latest version differ' });
  if (c.undecodable.count > 0) {
    unexpected.add(
      { why: 'undecodable record', examples: c.undecodable.examples },
      c.undecodable.count,
    );
  }
  for (const row of live.values()) {
    if (!row.isFinal) {
      notFinal.add({ key: row.key, version: row.version });
      continue;
    }
    const want = expected.get(row.key);
    if (want === undefined) {
      unexpected.add({
        key: row.key,
        why: 'final row the ledger does not imply',
        observed: row.values,
      });
    } else if (!sameValues(want, row.values)) {
      differing.add({ key: row.key, expected: want, observed: row.values });
    }
  }
  for (const [key, want] of expected) {
    if (!live.has(key)) missing.add({ key, expected: want });
  }

  const notes = [...input.unknownBecause, ...input.inexactBecause];
  if (c.foreign > 0) notes.push(`${c.foreign} row(s) of other runs ignored`);
  if (retracted > 0) notes.push(`${retracted} retracted row(s) dropped`);
  if (notFinal.count > 0) {
    const e = notFinal.toEvidence();
    notes.push(`${e.count} row(s) not final yet, e.g. ${JSON.stringify(e.examples.slice(0, 3))}`);
  }
  notes.push(...c.notes);

  const observed = live.size;
  const anomalies = missing.count + duplicated.count + unexpected.count + differing.count;
  let verdict: LayerReport['verdict'] =
    anomalies > 0 || input.inexactBecause.length > 0 ? 'inexact' : 'exact';
  if (verdict === 'exact' && notFinal.count > 0) verdict = 'unknown';
  // The expectation itself is in doubt (ledger problems, events whose ingest time was not seen).
  if (input.unknownBecause.length > 0) verdict = 'unknown';
  if (observed === 0 && expected.size > 0) {
    // An empty layer is more likely a reader or wiring fault than a proof of loss (as for event layers).
    verdict = 'unknown';
    notes.unshift(`layer holds no row of this run although ${expected.size} are expected`);
  }
  return {
    layer,
    verdict,
    expected: expected.size,
    observed,
    missing: missing.toEvidence(),
    duplicated: duplicated.toEvidence(),
    unexpected: unexpected.toEvidence(),
    differing: differing.toEvidence(),
    notes,
    read_ms: c.readMs,
  };
}
