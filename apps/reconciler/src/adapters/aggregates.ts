/**
 * Aggregate layer adapters: agg.windows / agg.sessions read read_committed and reduced to the
 * latest version per key, and agg_windows / agg_sessions read with FINAL (by @clickstream/warehouse).
 */

import {
  decodeSessionAggregate,
  decodeWindowAggregate,
  sessionKey,
  windowKey,
  type AggregateDecodeResult,
} from '@clickstream/contracts';
import type { InRecord, ScanWant } from '@clickstream/kafka-tx';
import {
  readSessionRows,
  readWindowRows,
  type StoredSession,
  type StoredWindow,
} from '@clickstream/warehouse';
import type { AggregateContents, AggregateRead, ObservedAggregate } from '../core/check-aggregate';
import type { SessionValues, WindowValues } from '../core/timed-expectation';
import type { SqlSource } from './clickhouse';
import { readNote, type TopicSource } from './kafka';

interface Emission<V> extends ObservedAggregate<V> {
  runId: string;
}

type Decode<V> = (bytes: Buffer | null) => AggregateDecodeResult<Emission<V>>;

function fromWindow(w: Omit<StoredWindow, never>): Emission<WindowValues> {
  return {
    runId: w.run_id,
    key: windowKey(w),
    values: {
      window_end: w.window_end,
      event_count: w.event_count,
      amount_cents_sum: w.amount_cents_sum,
      distinct_sessions: w.distinct_sessions,
    },
    version: w.version,
    isFinal: w.is_final,
    retracted: false,
  };
}

function fromSession(s: StoredSession): Emission<SessionValues> {
  return {
    runId: s.run_id,
    key: sessionKey(s),
    values: {
      session_end: s.session_end,
      event_count: s.event_count,
      revenue_cents: s.revenue_cents,
      converted: s.converted,
    },
    version: s.version,
    isFinal: s.is_final,
    retracted: s.retracted,
  };
}

export const decodeWindowEmission: Decode<WindowValues> = (bytes) => {
  const d = decodeWindowAggregate(bytes);
  return d.ok ? { ok: true, value: fromWindow(d.value) } : d;
};

export const decodeSessionEmission: Decode<SessionValues> = (bytes) => {
  const d = decodeSessionAggregate(bytes);
  return d.ok ? { ok: true, value: fromSession(d.value) } : d;
};

function sameValues(a: object, b: object): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** This run's emissions reduced, one at a time, to the latest version per key. */
export class LatestPerKey<V> {
  private readonly latest = new Map<string, Emission<V>>();
  private readonly conflicts = new Map<string, number>();
  private readonly undecodable: unknown[] = [];
  private bad = 0;
  private foreign = 0;
  private emissions = 0;
  private wrongKey = 0;

  constructor(
    private readonly runId: string,
    private readonly ends: ReadonlyMap<number, number>,
    private readonly decode: Decode<V>,
  ) {}

  add(r: InRecord): void {
    const end = this.ends.get(r.partition);
    if (end === undefined || r.offset >= end) return;
    const d = this.decode(r.value);
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
    if (e.runId !== this.runId) {
      this.foreign++;
      return;
    }
    this.emissions++;
    if (r.key?.toString('utf8') !== e.key) this.wrongKey++;
    const prev = this.latest.get(e.key);
    if (prev === undefined || e.version > prev.version) {
      this.latest.set(e.key, e);
      this.conflicts.delete(e.key);
    } else if (
      e.version === prev.version &&
      !(
        sameValues(e.values as object, prev.values as object) &&
        e.isFinal === prev.isFinal &&
        e.retracted === prev.retracted
      )
    ) {
      this.conflicts.set(e.key, e.version);
    }
  }

  finish(): AggregateContents<V> {
    const notes = [`${this.emissions} emission(s) of this run, ${this.latest.size} key(s)`];
    if (this.wrongKey > 0)
      notes.push(`${this.wrongKey} record(s) whose Kafka key is not the key of their value`);
    return {
      rows: [...this.latest.values()].map(({ runId: _r, ...row }) => row),
      conflicts: [...this.conflicts].map(([key, version]) => ({ key, version })),
      undecodable: { count: this.bad, examples: this.undecodable },
      foreign: this.foreign,
      notes,
      readMs: 0,
    };
  }
}

/** This run's emissions reduced to the latest version per key (pure, unit-tested). */
export function latestPerKey<V>(
  records: readonly InRecord[],
  runId: string,
  ends: ReadonlyMap<number, number>,
  decode: Decode<V>,
): AggregateContents<V> {
  const x = new LatestPerKey(runId, ends, decode);
  for (const r of records) x.add(r);
  return x.finish();
}

/** Aggregate emissions are read by key and value; no header is needed. */
const AGGREGATE_WANT: ScanWant = { headers: [], values: true, keys: true };

export async function readKafkaAggregates<V>(
  source: TopicSource,
  topic: string,
  runId: string,
  decode: Decode<V>,
): Promise<AggregateRead<V>> {
  const started = Date.now();
  try {
    const x = new LatestPerKey(runId, await source.endOffsets(topic), decode);
    const records = await source.scan(topic, AGGREGATE_WANT, (r) => x.add(r));
    const contents = x.finish();
    contents.notes.unshift(readNote(topic, records, source));
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

async function readTable<V, S>(
  read: () => Promise<{ table: string; rows: S[]; raw: number }>,
  map: (row: S) => Emission<V>,
): Promise<AggregateRead<V>> {
  const started = Date.now();
  try {
    const r = await read();
    const notes = [
      `table ${r.table}: ${r.rows.length} row(s) with FINAL, ${r.raw} raw row(s) of this run`,
    ];
    return {
      ok: true,
      contents: {
        rows: r.rows.map((row) => {
          const { runId: _r, ...rest } = map(row);
          return rest;
        }),
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

export function readClickHouseWindows(
  sql: SqlSource,
  runId: string,
): Promise<AggregateRead<WindowValues>> {
  return readTable(() => readWindowRows(sql, runId), fromWindow);
}

export function readClickHouseSessions(
  sql: SqlSource,
  runId: string,
): Promise<AggregateRead<SessionValues>> {
  return readTable(() => readSessionRows(sql, runId), fromSession);
}
