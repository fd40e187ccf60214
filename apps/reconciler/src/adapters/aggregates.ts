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
import type { InRecord } from '@clickstream/kafka-tx';
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

/** This run's emissions reduced to the latest version per key (pure, unit-tested). */
export function latestPerKey<V>(
  records: readonly InRecord[],
  runId: string,
  ends: ReadonlyMap<number, number>,
  decode: Decode<V>,
): AggregateContents<V> {
  const latest = new Map<string, Emission<V>>();
  const conflicts = new Map<string, number>();
  const undecodable: unknown[] = [];
  let bad = 0;
  let foreign = 0;
  let emissions = 0;
  let wrongKey = 0;
  for (const r of records) {
    const end = ends.get(r.partition);
    if (end === undefined || r.offset >= end) continue;
    const d = decode(r.value);
    if (!d.ok) {
      // Undecodable records cannot be told apart by run: those whose key names this run count here.
      if (r.key?.toString('utf8').startsWith(`${runId}|`) !== true) {
        foreign++;
        continue;
      }
      bad++;
      if (undecodable.length < 5)
        undecodable.push({ partition: r.partition, offset: r.offset, detail: d.detail });
      continue;
    }
    const e = d.value;
    if (e.runId !== runId) {
      foreign++;
      continue;
    }
    emissions++;
    if (r.key?.toString('utf8') !== e.key) wrongKey++;
    const prev = latest.get(e.key);
    if (prev === undefined || e.version > prev.version) {
      latest.set(e.key, e);
      conflicts.delete(e.key);
    } else if (
      e.version === prev.version &&
      !(
        sameValues(e.values as object, prev.values as object) &&
        e.isFinal === prev.isFinal &&
        e.retracted === prev.retracted
      )
    ) {
      conflicts.set(e.key, e.version);
    }
  }
  const notes = [`${emissions} emission(s) of this run, ${latest.size} key(s)`];
  if (wrongKey > 0)
    notes.push(`${wrongKey} record(s) whose Kafka key is not the key of their value`);
  return {
    rows: [...latest.values()].map(({ runId: _r, ...row }) => row),
    conflicts: [...conflicts].map(([key, version]) => ({ key, version })),
    undecodable: { count: bad, examples: undecodable },
    foreign,
    notes,
    readMs: 0,
  };
}

export async function readKafkaAggregates<V>(
  source: TopicSource,
  topic: string,
  runId: string,
  decode: Decode<V>,
): Promise<AggregateRead<V>> {
  const started = Date.now();
  try {
    const ends = await source.endOffsets(topic);
    const records = await source.readTopic(topic);
    const contents = latestPerKey(records, runId, ends, decode);
    contents.notes.unshift(readNote(topic, records.length, source));
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
