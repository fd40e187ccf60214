/**
 * Aggregate layer adapters: agg.windows / agg.sessions read read_committed and reduced to the
 * latest version per key, and agg_windows / agg_sessions read with FINAL (by @clickstream/warehouse).
 */

import type { InRecord, ScanWant } from '@clickstream/kafka-tx';
import { readSessionRows, readWindowRows } from '@clickstream/warehouse';
import { AggregateKeys, isKeyOf } from '../core/aggregate-keys';
import { AggregateRows } from '../core/aggregate-rows';
import type { AggregateContents, AggregateRead } from '../core/check-aggregate';
import type { SqlSource } from './clickhouse';
import { SESSION_EMISSIONS, WINDOW_EMISSIONS, type EmissionShape } from './aggregate-wire';
import type { TopicSource } from './kafka';
import { readNotes } from './read-note';

export { SESSION_EMISSIONS, WINDOW_EMISSIONS, type EmissionShape } from './aggregate-wire';

/**
 * This run's emissions reduced, one at a time, to the latest version per key: rows by key id (ids
 * in the order keys are first seen, as a Map's insertion order), no object or key string kept per
 * emission.
 */
export class LatestPerKey<A> {
  private readonly keys: AggregateKeys;
  private readonly rows: AggregateRows;
  /** Per row: when its conflict was recorded (-1: none), so conflicts keep the order a Map of them had. */
  private readonly conflictAt: number[] = [];
  private readonly conflictVersion: number[] = [];
  private conflictClock = 0;
  private readonly undecodable: unknown[] = [];
  private bad = 0;
  private foreign = 0;
  private emissions = 0;
  private wrongKey = 0;

  constructor(
    private readonly runId: string,
    private readonly ends: ReadonlyMap<number, number>,
    private readonly shape: EmissionShape<A>,
  ) {
    this.keys = new AggregateKeys(shape.kind);
    this.rows = new AggregateRows(shape.kind);
  }

  add(r: InRecord): void {
    const end = this.ends.get(r.partition);
    if (end === undefined || r.offset >= end) return;
    const shape = this.shape;
    const d = shape.decode(r.value);
    if (!d.ok) {
      // Undecodable records cannot be told apart by run: those whose key names this run count here.
      if (r.key?.toString('utf8').startsWith(`${this.runId}|`) !== true) {
        this.foreign++;
        return;
      }
      this.bad++;
      if (this.undecodable.length < 5)
        this.undecodable.push({ partition: r.partition, offset: r.offset, detail: d.detail });
      return;
    }
    const e = d.value;
    if (shape.runId(e) !== this.runId) {
      this.foreign++;
      return;
    }
    this.emissions++;
    const text = shape.text(e);
    const time = shape.time(e);
    const key = r.key?.toString('utf8');
    if (key === undefined || !isKeyOf(key, shape.kind, this.runId, text, time)) this.wrongKey++;
    const id = this.keys.idOf(this.runId, text, time);
    if (id === this.rows.length) {
      this.rows.add(this.runId, text, time);
      this.conflictAt.push(-1);
      this.conflictVersion.push(0);
      shape.write(this.rows, id, e);
      return;
    }
    const version = shape.version(e);
    const prev = this.rows.versions[id] as number;
    if (version > prev) {
      shape.write(this.rows, id, e);
      this.conflictAt[id] = -1;
    } else if (version === prev && !shape.same(this.rows, id, e)) {
      if (this.conflictAt[id] === -1) this.conflictAt[id] = this.conflictClock++;
      this.conflictVersion[id] = version;
    }
  }

  finish(): AggregateContents {
    const notes = [`${this.emissions} emission(s) of this run, ${this.rows.length} key(s)`];
    if (this.wrongKey > 0)
      notes.push(`${this.wrongKey} record(s) whose Kafka key is not the key of their value`);
    const conflicted: number[] = [];
    for (let i = 0; i < this.rows.length; i++) if (this.conflictAt[i] !== -1) conflicted.push(i);
    conflicted.sort((a, b) => (this.conflictAt[a] as number) - (this.conflictAt[b] as number));
    return {
      rows: this.rows,
      conflicts: conflicted.map((i) => ({
        key: this.rows.keyOf(i),
        version: this.conflictVersion[i] as number,
      })),
      undecodable: { count: this.bad, examples: this.undecodable },
      foreign: this.foreign,
      notes,
      readMs: 0,
    };
  }
}

/** This run's emissions reduced to the latest version per key (pure, unit-tested). */
export function latestPerKey<A>(
  records: readonly InRecord[],
  runId: string,
  ends: ReadonlyMap<number, number>,
  shape: EmissionShape<A>,
): AggregateContents {
  const x = new LatestPerKey(runId, ends, shape);
  for (const r of records) x.add(r);
  return x.finish();
}

/** Aggregate emissions are read by key and value; no header is needed. */
export const AGGREGATE_WANT: ScanWant = { headers: [], values: true, keys: true };

/** Reduces an aggregate topic's records to the latest version per key: here (LatestPerKey) or on another thread. */
export interface AggregateReducer {
  add(r: InRecord): void;
  finish(): AggregateContents | Promise<AggregateContents>;
  /** The scan failed: the records added so far are dropped. */
  abort?(): void;
}

export async function readKafkaAggregates<A>(
  source: TopicSource,
  topic: string,
  runId: string,
  shape: EmissionShape<A>,
  reducerOf: (ends: ReadonlyMap<number, number>) => AggregateReducer = (ends) =>
    new LatestPerKey(runId, ends, shape),
): Promise<AggregateRead> {
  const started = Date.now();
  try {
    const x = reducerOf(await source.endOffsets(topic));
    const scan = await source
      .scan(topic, AGGREGATE_WANT, (r) => x.add(r))
      .catch((err: unknown) => {
        x.abort?.();
        throw err;
      });
    const contents = await x.finish();
    contents.notes.unshift(...readNotes(topic, scan, source));
    contents.readMs = Date.now() - started;
    return { ok: true, contents };
  } catch (err) {
    return {
      ok: false,
      error: `topic ${topic}: ${err instanceof Error ? err.message : String(err)}`,
      readMs: Date.now() - started,
    };
  }
}

async function readTable<S>(
  read: () => Promise<{ table: string; rows: S[]; raw: number }>,
  shape: EmissionShape<S>,
): Promise<AggregateRead> {
  const started = Date.now();
  try {
    const r = await read();
    const notes = [
      `table ${r.table}: ${r.rows.length} row(s) with FINAL, ${r.raw} raw row(s) of this run`,
    ];
    const rows = new AggregateRows(shape.kind);
    for (const row of r.rows)
      shape.write(rows, rows.add(shape.runId(row), shape.text(row), shape.time(row)), row);
    return {
      ok: true,
      contents: {
        rows,
        conflicts: [],
        undecodable: { count: 0, examples: [] },
        foreign: 0,
        notes,
        readMs: Date.now() - started,
      },
    };
  } catch (err) {
    return {
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      readMs: Date.now() - started,
    };
  }
}

export function readClickHouseWindows(sql: SqlSource, runId: string): Promise<AggregateRead> {
  return readTable(() => readWindowRows(sql, runId), WINDOW_EMISSIONS);
}

export function readClickHouseSessions(sql: SqlSource, runId: string): Promise<AggregateRead> {
  return readTable(() => readSessionRows(sql, runId), SESSION_EMISSIONS);
}
