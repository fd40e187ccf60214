import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SecondThread, StoredReads, type SecondThreadData } from './second-thread';

const DATA: SecondThreadData = {
  setup: { clickhouseUrl: 'http://127.0.0.1:1', clickhouseDatabase: 'db', logLevel: 'silent' },
  request: {
    layers: ['clickstream.raw', 'clickhouse.valid', 'iceberg.clean'],
    runId: 'r1',
    topics: { valid: 'events.valid', dlq: 'events.dlq', clean: 'events.clean' },
    icebergTablePath: '/nowhere',
    examples: 5,
  },
  ledgerEventIds: [],
};

describe('StoredReads', () => {
  it('a stored layer the second thread did not read is a failed read; other layers are not its to read', () => {
    const done: string[] = [];
    const reads = new StoredReads(DATA.request.layers, (layer) => done.push(layer));
    reads.take('clickhouse.valid', { ok: false, error: 'x', readMs: 1 });
    const out = reads.finish('exited with code 1');
    expect([...out.keys()]).toEqual(['clickhouse.valid', 'iceberg.clean']);
    expect(out.get('iceberg.clean')).toMatchObject({
      ok: false,
      error: 'the second thread exited with code 1',
    });
    expect(done).toEqual(['clickhouse.valid', 'iceberg.clean']);
  });
});

/** A stand-in worker script speaking the second thread's protocol (the real one is compiled JS). */
function script(dir: string, body: string): string {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.js`);
  fs.writeFileSync(
    file,
    `const { parentPort, workerData } = require('worker_threads');\n${body}\n`,
  );
  return file;
}

describe('SecondThread', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'second-thread-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('passes stored reads through and answers reductions by id, records packed in chunks', async () => {
    const secondThread = new SecondThread(
      script(
        dir,
        `parentPort.postMessage({ kind: 'layer', layer: 'clickhouse.valid', read: { ok: false, error: 'v', readMs: 0 } });
         parentPort.postMessage({ kind: 'layer', layer: 'iceberg.clean', read: { ok: false, error: 'i', readMs: 0 } });
         parentPort.postMessage({ kind: 'stored-done' });
         const records = new Map();
         parentPort.on('message', (m) => {
           if (m.kind === 'reduce-start') records.set(m.id, 0);
           if (m.kind === 'reduce-chunk') records.set(m.id, records.get(m.id) + m.chunk.records);
           if (m.kind === 'reduce-end')
             parentPort.postMessage({ kind: 'reduced', id: m.id, result: {
               rows: { kind: 'sessions', runIds: ['r1'], texts: ['s'], times: [7], versions: [2], finals: [true], retracted: [false], values: [[8], [1], [0], [0]] },
               conflicts: [], undecodable: { count: 0, examples: [] }, foreign: records.get(m.id), notes: [], readMs: 0 } });
         });`,
      ),
      DATA,
    );
    try {
      const stored = await secondThread.stored();
      expect([...stored.keys()]).toEqual(['clickhouse.valid', 'iceberg.clean']);
      const reducer = secondThread.aggregateReducer({
        topic: 'agg.sessions',
        shape: 'sessions',
        runId: 'r1',
        ends: new Map(),
      });
      for (let offset = 0; offset < 3; offset++)
        reducer.add({
          topic: 't',
          partition: 0,
          offset,
          key: null,
          value: null,
          headers: {},
          timestamp: 0,
        });
      const contents = await reducer.finish();
      expect(contents.foreign).toBe(3);
      expect(contents.rows.toObjects()).toEqual([
        expect.objectContaining({ key: 'r1|s|7', version: 2 }),
      ]);
    } finally {
      await secondThread.close();
    }
  });

  it('a second thread that dies fails what it had not answered: the stored layers and the reductions under way', async () => {
    const secondThread = new SecondThread(
      script(
        dir,
        `parentPort.on('message', (m) => { if (m.kind === 'reduce-end') process.exit(3); });`,
      ),
      DATA,
    );
    try {
      const stored = secondThread.stored();
      const reducer = secondThread.aggregateReducer({
        topic: 'agg.sessions',
        shape: 'sessions',
        runId: 'r1',
        ends: new Map(),
      });
      await expect(reducer.finish()).rejects.toThrow(/the second thread exited with code 3/);
      const reads = await stored;
      expect(reads.get('clickhouse.valid')).toMatchObject({
        ok: false,
        error: 'the second thread exited with code 3',
      });
    } finally {
      await secondThread.close();
    }
  });
});
