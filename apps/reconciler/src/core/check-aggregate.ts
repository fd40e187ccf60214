/**
 * Compares an aggregate layer (window or session rows, the latest version per key) with the rows
 * the ledger implies: a pure checker. Every final, non-retracted row must equal its expected row;
 * a row that is not final yet makes the layer unknown (never exact).
 */

import type { LayerName, LayerReport } from '@clickstream/contracts';
import type { AggregateKind } from './aggregate-keys';
import { sameValuesAt, type AggregateRows } from './aggregate-rows';
import { DEFAULT_EXAMPLES, EvidenceCollector } from './evidence';
import type { ExpectedAggregates } from './expected-aggregates';

export interface AggregateContents {
  /** One row per key (latest version); a key twice is reported as duplicated. */
  rows: AggregateRows;
  /** Keys whose latest version was emitted twice with different values (Kafka only). */
  conflicts: { key: string; version: number }[];
  /** Records of this layer that do not decode (examples). */
  undecodable: { count: number; examples: unknown[] };
  /** Rows or records of other runs, ignored. */
  foreign: number;
  notes: string[];
  readMs: number;
}

export type AggregateRead =
  { ok: true; contents: AggregateContents } | { ok: false; error: string; readMs: number };

export interface AggregateCheckInput<K extends AggregateKind> {
  layer: LayerName;
  /** Its key space is extended with the keys of the observed rows the ledger does not imply. */
  expected: ExpectedAggregates<K>;
  read: AggregateRead;
  /** Problems that make the verdict unknown whatever the layer holds (ledger problems, unobserved ingest times). */
  unknownBecause: string[];
  /** Definite problems found outside the layer that make it inexact (ingest time not the broker's). */
  inexactBecause: string[];
  examples?: number;
}

const EMPTY = { count: 0, examples: [] };

/** Each row's key id in the expectation's key space (a key the ledger does not imply gets a new id >= expected.size). */
function idsOf(rows: AggregateRows, expected: ExpectedAggregates<AggregateKind>): Int32Array {
  const ids = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++)
    ids[i] = expected.space.idOf(
      rows.runIds[i] as string,
      rows.texts[i] as string,
      rows.times[i] as number,
    );
  return ids;
}

export function checkAggregateLayer<K extends AggregateKind>(
  input: AggregateCheckInput<K>,
): LayerReport {
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
  const rows = c.rows;
  const ids = idsOf(rows, expected);
  // The row that holds each key id (-1: none); `live` keeps the rows in read order.
  const rowOf = new Int32Array(expected.space.size).fill(-1);
  const live: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    if (rows.retracted[i] === true) {
      retracted++;
      continue;
    }
    const id = ids[i] as number;
    if (rowOf[id] !== -1) {
      duplicated.add({ key: rows.keyOf(i), why: 'key held twice' });
      continue;
    }
    rowOf[id] = i;
    live.push(i);
  }
  for (const conflict of c.conflicts)
    duplicated.add({ ...conflict, why: 'two emissions of the latest version differ' });
  if (c.undecodable.count > 0) {
    unexpected.add(
      { why: 'undecodable record', examples: c.undecodable.examples },
      c.undecodable.count,
    );
  }
  for (const i of live) {
    if (rows.finals[i] !== true) {
      notFinal.addLazily(() => ({ key: rows.keyOf(i), version: rows.versions[i] }));
      continue;
    }
    const id = ids[i] as number;
    if (id >= expected.size) {
      unexpected.addLazily(() => ({
        key: rows.keyOf(i),
        why: 'final row the ledger does not imply',
        observed: rows.valuesOf(i),
      }));
    } else if (!sameValuesAt(expected.values, id, rows.values, i)) {
      differing.addLazily(() => ({
        key: rows.keyOf(i),
        expected: expected.valuesOf(id),
        observed: rows.valuesOf(i),
      }));
    }
  }
  // Expected ids are 0..size-1 in the order the expectation found them.
  for (let id = 0; id < expected.size; id++) {
    if (rowOf[id] === -1)
      missing.addLazily(() => ({ key: expected.space.keyOf(id), expected: expected.valuesOf(id) }));
  }

  const notes = [...input.unknownBecause, ...input.inexactBecause];
  if (c.foreign > 0) notes.push(`${c.foreign} row(s) of other runs ignored`);
  if (retracted > 0) notes.push(`${retracted} retracted row(s) dropped`);
  if (notFinal.count > 0) {
    const e = notFinal.toEvidence();
    notes.push(`${e.count} row(s) not final yet, e.g. ${JSON.stringify(e.examples.slice(0, 3))}`);
  }
  notes.push(...c.notes);

  const observed = live.length;
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
