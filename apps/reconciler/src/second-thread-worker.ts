/** Worker thread entry (adapters/second-thread.ts): reads the stored layers, and reduces the Kafka records the main thread sends. */

import { parentPort, workerData } from 'worker_threads';
import pino from 'pino';
import { createWarehouse, type Warehouse } from '@clickstream/warehouse';
import type { FromSecondThread, SecondThreadData, ToSecondThread } from './adapters/second-thread';
import { Reductions } from './adapters/second-thread-reductions';
import { portableRead, readStoredLayers } from './adapters/stored-layers';

const data = workerData as SecondThreadData;
const post = (m: FromSecondThread): void => parentPort?.postMessage(m);
const why = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const reductions = new Reductions();

/**
 * Reductions run from a queue, one message per turn of the event loop: a burst of chunks must not
 * starve the ClickHouse responses this thread reads meanwhile (their requests time out).
 */
const queue: ToSecondThread[] = [];
let next = 0;
let draining = false;

function drain(): void {
  const m = queue[next];
  if (m !== undefined) {
    queue[next++] = undefined as never;
    handle(m);
  }
  if (next < queue.length) {
    setImmediate(drain);
    return;
  }
  queue.length = 0;
  next = 0;
  draining = false;
}

parentPort?.on('message', (m: ToSecondThread) => {
  queue.push(m);
  if (!draining) {
    draining = true;
    setImmediate(drain);
  }
});

function handle(m: ToSecondThread): void {
  const answer = reductions.handle(m);
  if (answer !== null) post(answer);
}

async function readStored(): Promise<void> {
  const logger = pino(
    { name: 'reconciler', level: data.setup.logLevel },
    pino.destination(2),
  ).child({ thread: 'second' });
  let warehouse: Warehouse | null = null;
  try {
    await readStoredLayers(
      {
        sql: () =>
          (warehouse ??= createWarehouse({
            url: data.setup.clickhouseUrl,
            database: data.setup.clickhouseDatabase,
            logger: logger.child({ module: 'clickhouse' }),
          })),
      },
      data.request,
      (layer, read) =>
        post({ kind: 'layer', layer, read: portableRead(read, data.ledgerEventIds) }),
    );
    post({ kind: 'stored-done' });
  } finally {
    await (warehouse as Warehouse | null)?.close();
  }
}

readStored().catch((err: unknown) => post({ kind: 'stored-failed', error: why(err) }));
