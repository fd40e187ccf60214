import {
  encodeSessionAggregate,
  encodeWindowAggregate,
  type SessionAggregate,
  type WindowAggregate,
} from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import { AggregateRows } from '../core/aggregate-rows';
import type { AggregateContents } from '../core/check-aggregate';
import { AGGREGATE_WANT, latestPerKey, SESSION_EMISSIONS, WINDOW_EMISSIONS } from './aggregates';
import type { FromSecondThread, ReduceTask, ToSecondThread } from './second-thread';
import { Reductions } from './second-thread-reductions';
import { RecordPacker, type RecordChunk } from './record-chunks';
import { AGG_T0 as T0, sessionAggregate, windowAggregate } from '../../test/aggregate-rows';

const ends = new Map([
  [0, 10],
  [1, 10],
]);

function windowRec(offset: number, over: Partial<WindowAggregate>): InRecord {
  const w = windowAggregate(over);
  return {
    topic: 'agg.windows',
    partition: 1,
    offset,
    key: Buffer.from(`${w.run_id}|${w.window_start}|${w.event_type}`),
    value: encodeWindowAggregate(w),
    headers: {},
    timestamp: T0,
  };
}

function session(over: Partial<SessionAggregate>): InRecord {
  const s = sessionAggregate(over);
  return {
    topic: 'agg.sessions',
    partition: 0,
    offset: s.version,
    key: Buffer.from(`${s.run_id}|${s.session_id}|${s.session_start}`),
    value: encodeSessionAggregate(s),
    headers: {},
    timestamp: T0,
  };
}

/** Typed arrays as their kind and values (a structured clone makes them in another realm under jest). */
function plain(x: unknown): unknown {
  if (ArrayBuffer.isView(x))
    return { [Object.prototype.toString.call(x)]: Array.from(x as unknown as ArrayLike<number>) };
  if (Array.isArray(x)) return x.map(plain);
  if (x instanceof Map) return new Map([...x].map(([k, v]) => [k, plain(v)]));
  if (x !== null && typeof x === 'object')
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)]));
  return x;
}

/** What the worker answers for `records` of `task`, sent in chunks of `chunkBytes`. */
function reduceOnSecondThread(
  task: ReduceTask,
  records: InRecord[],
  chunkBytes = 256,
): FromSecondThread[] {
  const reductions = new Reductions();
  const answers: FromSecondThread[] = [];
  const send = (m: ToSecondThread): void => {
    // Structured clone, as postMessage does.
    const answer = reductions.handle(structuredClone(m));
    if (answer !== null) answers.push(structuredClone(answer));
  };
  send({ kind: 'reduce-start', id: 7, task });
  const packer = new RecordPacker(
    AGGREGATE_WANT.headers,
    (chunk: RecordChunk) => send({ kind: 'reduce-chunk', id: 7, chunk }),
    chunkBytes,
  );
  for (const r of records) packer.add(r);
  packer.end();
  send({ kind: 'reduce-end', id: 7 });
  expect(reductions.size).toBe(0);
  return answers;
}

describe('Reductions: a reduction on the second thread gives what the main thread would', () => {
  it('the empty topic', () => {
    const task: ReduceTask = { topic: 'agg.sessions', shape: 'sessions', runId: 'r1', ends };
    const [answer] = reduceOnSecondThread(task, []);
    const got = (answer as { result: AggregateContents }).result;
    const want = latestPerKey([], 'r1', ends, SESSION_EMISSIONS);
    expect(AggregateRows.revive(got.rows).toObjects()).toEqual([]);
    expect(plain({ ...got, rows: null })).toEqual(plain({ ...want, rows: null }));
  });

  it('agg.sessions: the latest version per key, conflicts and undecodable records, revived as rows', () => {
    const records = [
      session({ version: 1 }),
      session({ version: 2, event_count: 4 }),
      session({ version: 2, event_count: 5 }),
      session({ session_id: 's-2', version: 1, is_final: true }),
      { ...session({ version: 3 }), value: Buffer.from('junk'), key: Buffer.from('r1|s-1|1') },
    ];
    const task: ReduceTask = {
      topic: 'agg.sessions',
      shape: 'sessions',
      runId: 'r1',
      ends,
    };
    const [answer] = reduceOnSecondThread(task, records);
    expect(answer?.kind).toBe('reduced');
    const got = (answer as { result: AggregateContents }).result;
    const want = latestPerKey(records, 'r1', ends, SESSION_EMISSIONS);
    const rows = AggregateRows.revive(got.rows);
    expect(rows).toBeInstanceOf(AggregateRows);
    expect(rows.toObjects()).toEqual(want.rows.toObjects());
    expect(want.conflicts.length + want.undecodable.count).toBeGreaterThan(1);
    expect(plain({ ...got, rows: null })).toEqual(plain({ ...want, rows: null }));
  });

  it('agg.windows: reduced as windows, past the end offsets and other runs left out', () => {
    const records = [
      windowRec(0, { version: 1 }),
      windowRec(1, { version: 2, event_count: 2, is_final: true }),
      windowRec(2, { run_id: 'r2' }),
      windowRec(10, { version: 3 }),
      windowRec(3, { event_type: 'purchase', amount_cents_sum: 500 }),
    ];
    const task: ReduceTask = { topic: 'agg.windows', shape: 'windows', runId: 'r1', ends };
    const [answer] = reduceOnSecondThread(task, records, 64);
    const got = (answer as { result: AggregateContents }).result;
    const want = latestPerKey(records, 'r1', ends, WINDOW_EMISSIONS);
    expect(want.rows.length).toBe(2);
    expect(AggregateRows.revive(got.rows).toObjects()).toEqual(want.rows.toObjects());
    expect(plain({ ...got, rows: null })).toEqual(plain({ ...want, rows: null }));
  });

  it('a chunk that does not unpack fails the reduction at its end, and an aborted one answers nothing', () => {
    const reductions = new Reductions();
    const task: ReduceTask = { topic: 't', shape: 'windows', runId: 'r1', ends };
    reductions.handle({ kind: 'reduce-start', id: 1, task });
    const bad: RecordChunk = { buffer: new ArrayBuffer(4), bytes: 4, records: 1 };
    expect(reductions.handle({ kind: 'reduce-chunk', id: 1, chunk: bad })).toBeNull();
    expect(reductions.handle({ kind: 'reduce-end', id: 1 })).toMatchObject({
      kind: 'reduce-failed',
      id: 1,
    });
    reductions.handle({ kind: 'reduce-start', id: 2, task });
    expect(reductions.handle({ kind: 'reduce-abort', id: 2 })).toBeNull();
    expect(reductions.handle({ kind: 'reduce-end', id: 2 })).toBeNull();
    expect(reductions.size).toBe(0);
  });
});
