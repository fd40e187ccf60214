/**
 * A worker thread beside the main one (second-thread-worker.ts), so that a reconciliation uses the
 * machine's second core: it reads the stored layers (ClickHouse, Iceberg) itself, and reduces the
 * agg.sessions records the main thread hands it (the Kafka client lives on the main thread only;
 * the records come packed in chunks, record-chunks.ts) with the reducer the main thread would run.
 * What comes back is compact: typed arrays, event ids already checked against the ledger.
 */

import { Worker } from 'worker_threads';
import type { InRecord } from '@clickstream/kafka-tx';
import type { AggregateContents } from '../core/check-aggregate';
import { AggregateRows } from '../core/aggregate-rows';
import type { LayerRead } from '../core/contents';
import type { EventLayer } from '../core/layers';
import { AGGREGATE_WANT, type AggregateReducer } from './aggregates';
import { RecordPacker, type RecordChunk } from './record-chunks';
import { isStoredLayer, type StoredRequest } from './stored-layers';

/** How the worker reaches ClickHouse and logs (from the reconciler's config). */
export interface SecondThreadSetup {
  clickhouseUrl: string;
  clickhouseDatabase: string;
  logLevel: string;
}

export interface SecondThreadData {
  setup: SecondThreadSetup;
  /** The stored layers to read (none: the worker only reduces what it is sent). */
  request: StoredRequest;
  /** The ledger's event_id by seq: what the worker checks the layers' event ids against. */
  ledgerEventIds: ArrayLike<string | null | undefined>;
}

/** What a reduction on the worker reduces: an aggregate topic's records (agg.sessions in practice). */
export interface ReduceTask {
  topic: string;
  shape: 'windows' | 'sessions';
  runId: string;
  ends: ReadonlyMap<number, number>;
}

/** Main thread -> worker. */
export type ToSecondThread =
  | { kind: 'reduce-start'; id: number; task: ReduceTask }
  | { kind: 'reduce-chunk'; id: number; chunk: RecordChunk }
  | { kind: 'reduce-end'; id: number }
  | { kind: 'reduce-abort'; id: number };

/** Worker -> main thread. */
export type FromSecondThread =
  | { kind: 'layer'; layer: EventLayer; read: LayerRead }
  | { kind: 'stored-done' }
  | { kind: 'stored-failed'; error: string }
  | { kind: 'reduced'; id: number; result: unknown }
  | { kind: 'reduce-failed'; id: number; error: string };

/** Collects the stored reads; every requested layer ends with a read, failed if none came. */
export class StoredReads {
  readonly reads = new Map<EventLayer, LayerRead>();
  private readonly started = Date.now();

  constructor(
    private readonly layers: readonly EventLayer[],
    private readonly done: (layer: EventLayer, read: LayerRead) => void = () => undefined,
  ) {}

  take(layer: EventLayer, read: LayerRead): void {
    this.reads.set(layer, read);
    this.done(layer, read);
  }

  /** The reads, with a failed read (`why`) for each requested layer the worker did not read. */
  finish(why: string): Map<EventLayer, LayerRead> {
    for (const layer of this.layers) {
      if (!isStoredLayer(layer) || this.reads.has(layer)) continue;
      this.take(layer, {
        ok: false,
        error: `the second thread ${why}`,
        readMs: Date.now() - this.started,
      });
    }
    return this.reads;
  }
}

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

export class SecondThread {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private storedReads: StoredReads | null = null;
  private storedResolve: ((m: Map<EventLayer, LayerRead>) => void) | null = null;
  private storedEnd: string | null = null;
  private gone: string | null = null;

  constructor(
    script: string,
    private readonly data: SecondThreadData,
  ) {
    this.worker = new Worker(script, { workerData: data });
    this.worker.on('message', (m: FromSecondThread) => this.take(m));
    this.worker.once('error', (err) => this.fail(`failed: ${err.message}`));
    this.worker.once('exit', (code) => this.fail(`exited with code ${code}`));
  }

  private take(m: FromSecondThread): void {
    if (m.kind === 'layer') {
      this.storedReads?.take(m.layer, m.read);
      return;
    }
    if (m.kind === 'stored-done' || m.kind === 'stored-failed') {
      this.endStored(m.kind === 'stored-done' ? 'ended without reading it' : `failed: ${m.error}`);
      return;
    }
    const p = this.pending.get(m.id);
    this.pending.delete(m.id);
    if (m.kind === 'reduced') p?.resolve(m.result);
    else p?.reject(new Error(`the second thread failed: ${m.error}`));
  }

  private endStored(why: string): void {
    this.storedEnd ??= why;
    if (this.storedReads !== null && this.storedResolve !== null) {
      this.storedResolve(this.storedReads.finish(this.storedEnd));
      this.storedResolve = null;
    }
  }

  private fail(why: string): void {
    this.gone ??= why;
    this.endStored(why);
    for (const p of this.pending.values()) p.reject(new Error(`the second thread ${why}`));
    this.pending.clear();
  }

  /** The stored layers of the request, `done` called with each read as it arrives. */
  stored(done?: (layer: EventLayer, read: LayerRead) => void): Promise<Map<EventLayer, LayerRead>> {
    this.storedReads = new StoredReads(this.data.request.layers, done);
    return new Promise((resolve) => {
      this.storedResolve = resolve;
      if (this.storedEnd !== null) this.endStored(this.storedEnd);
    });
  }

  private reduce(task: ReduceTask): {
    add(r: InRecord): void;
    finish(): Promise<unknown>;
    abort(): void;
  } {
    const id = this.nextId++;
    const post = (m: ToSecondThread, transfer?: ArrayBuffer[]): void => {
      if (this.gone === null) this.worker.postMessage(m, transfer);
    };
    post({ kind: 'reduce-start', id, task });
    const packer = new RecordPacker(AGGREGATE_WANT.headers, (chunk) =>
      post({ kind: 'reduce-chunk', id, chunk }, [chunk.buffer]),
    );
    return {
      add: (r) => packer.add(r),
      finish: () => {
        packer.end();
        const result = new Promise<unknown>((resolve, reject) => {
          if (this.gone !== null) reject(new Error(`the second thread ${this.gone}`));
          else this.pending.set(id, { resolve, reject });
        });
        post({ kind: 'reduce-end', id });
        return result;
      },
      abort: () => post({ kind: 'reduce-abort', id }),
    };
  }

  /** A reducer of an aggregate topic that runs LatestPerKey on the worker. */
  aggregateReducer(task: ReduceTask): AggregateReducer {
    const r = this.reduce(task);
    return {
      add: r.add,
      abort: r.abort,
      finish: async () => {
        const c = (await r.finish()) as AggregateContents;
        return { ...c, rows: AggregateRows.revive(c.rows) };
      },
    };
  }

  async close(): Promise<void> {
    this.gone ??= 'was closed';
    await this.worker.terminate();
  }
}
