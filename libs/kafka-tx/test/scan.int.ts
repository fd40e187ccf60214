/**
 * scanTopic through the compiled topic reader (apps/topic-reader) against readTopic, on the real
 * cluster: the same records, byte for byte, across non-transactional, committed and aborted
 * records, an aborted tail whose abort marker lies past the end offset (an open transaction holds
 * the last stable offset), keys, null and empty values, repeated headers, and a read from a time.
 */
import * as path from 'node:path';
import { Producer } from '@confluentinc/kafka-javascript';
import { createTopics, deleteTopics, readRanges, readTopic, scanTopic } from '../src';
import type { InRecord } from '../src/types';
import { BOOTSTRAP, clientOptions, REPO_ROOT, uniqueName } from './helpers';
import { waitForValue } from '@clickstream/test-support';

const READER = path.join(REPO_ROOT, 'apps', 'topic-reader', 'dist', 'topic-reader');
const HEADERS = ['h', 'run', 'absent'];
/** The end offsets (LSO) of the three partitions once every marker is written. */
const SETTLED = { 0: 9, 1: 4, 2: 1 };

type Header = Record<string, string | Buffer>;

/** A transactional producer of the binding, promisified for the few calls used here. */
class TxProducer {
  private readonly p: Producer;
  constructor(id: string) {
    this.p = new Producer({
      'metadata.broker.list': BOOTSTRAP,
      'transactional.id': id,
      dr_cb: true,
      'linger.ms': 0,
    });
  }
  private call(f: (cb: (err: unknown) => void) => void): Promise<void> {
    return new Promise((resolve, reject) => f((err) => (err ? reject(err) : resolve())));
  }
  async open(): Promise<void> {
    await this.call((cb) => this.p.connect({}, cb));
    this.p.setPollInterval(20);
    await this.call((cb) => this.p.initTransactions(30000, cb));
  }
  begin(): Promise<void> {
    return this.call((cb) => this.p.beginTransaction(cb));
  }
  send(topic: string, partition: number, value: string, headers: Header[] = []): void {
    this.p.produce(topic, partition, Buffer.from(value), `k-${value}`, Date.now(), null, headers);
  }
  async flush(): Promise<void> {
    await this.call((cb) => this.p.flush(30000, cb));
  }
  commit(): Promise<void> {
    return this.call((cb) => this.p.commitTransaction(30000, cb));
  }
  abort(): Promise<void> {
    return this.call((cb) => this.p.abortTransaction(30000, cb));
  }
  close(): Promise<void> {
    return this.call((cb) => this.p.disconnect(cb));
  }
}

/** Everything a record is, with only the asked headers (the compiled reader sends no others). */
function shape(r: InRecord): object {
  const headers: Record<string, string> = {};
  for (const h of HEADERS) {
    const v = r.headers[h];
    if (v !== undefined) headers[h] = v.toString('hex');
  }
  return {
    partition: r.partition,
    offset: r.offset,
    timestamp: r.timestamp,
    key: r.key === null ? null : r.key.toString('hex'),
    value: r.value === null ? null : r.value.toString('hex'),
    headers,
  };
}

async function scanned(o: Parameters<typeof scanTopic>[0]): Promise<object[]> {
  const out: object[] = [];
  const res = await scanTopic(o, (r) => out.push(shape(r)));
  expect(res.records).toBe(out.length);
  expect(res.reader).toBe(o.readerPath === undefined ? 'node' : 'compiled');
  return out;
}

describe('scanTopic: the compiled topic reader gives what readTopic gives', () => {
  const o = clientOptions('scan');
  const topic = uniqueName('scan');
  const x = new TxProducer(uniqueName('scan-x'));
  const y = new TxProducer(uniqueName('scan-y'));
  let middle = 0;

  beforeAll(async () => {
    await createTopics(o, [{ topic, partitions: 3 }]);
    await x.open();
    await y.open();
    // Partition 0: committed, aborted, committed, and an aborted tail (its marker is the last offset).
    await x.begin();
    x.send(topic, 0, 'c1', [{ h: 'first' }, { h: 'last' }, { run: 'r1' }]);
    x.send(topic, 0, 'c2', [{ run: Buffer.alloc(0) }]);
    x.send(topic, 1, 'c3');
    await x.commit();
    await x.begin();
    x.send(topic, 0, 'a1', [{ run: 'aborted' }]);
    await x.flush();
    await x.abort();
    middle = Date.now();
    await x.begin();
    x.send(topic, 0, 'c4');
    x.send(topic, 1, 'c5', [{ h: 'x' }]);
    await x.commit();
    await x.begin();
    x.send(topic, 0, 'a2');
    await x.flush();
    await x.abort();
    // Partition 2: an aborted record, then y opens a transaction, then the abort marker: the last
    // stable offset is y's first record, so the range ends right after an aborted record.
    await x.begin();
    x.send(topic, 2, 'a3');
    await x.flush();
    await y.begin();
    y.send(topic, 2, 'open');
    await y.flush();
    await x.abort();
    // A commit or abort returns once the coordinator has logged it; the markers reach the
    // partitions after that. Until they do, the last stable offsets lag, and two reads taken a
    // moment apart (the compiled reader's, then readTopic's) could end at different offsets.
    // Partition 0: 5 records and 4 markers; partition 1: 2 and 2; partition 2: held by the open
    // transaction at its first record, right after the aborted one.
    await waitForValue(
      'every transaction marker written',
      async () => Object.fromEntries((await readRanges({ ...o, topic })).end),
      (end) => JSON.stringify(end) === JSON.stringify(SETTLED),
      60000,
      200,
    );
  }, 120000);

  afterAll(async () => {
    await y.abort().catch(() => undefined);
    await x.close().catch(() => undefined);
    await y.close().catch(() => undefined);
    await deleteTopics(o, [topic]);
  });

  it('reads the same records, in the same order, as readTopic', async () => {
    const want = { ...o, topic, headers: HEADERS, values: true, keys: true };
    const compiled = await scanned({ ...want, readerPath: READER });
    const node = await scanned(want);
    expect(compiled).toEqual(node);
    expect(compiled.map((r) => (r as { value: string }).value)).toEqual(
      ['c1', 'c2', 'c4', 'c3', 'c5'].map((v) => Buffer.from(v).toString('hex')),
    );
    // A repeated header keeps its last value; an empty one is kept apart from an absent one.
    expect(compiled[0]).toMatchObject({
      headers: { h: Buffer.from('last').toString('hex'), run: Buffer.from('r1').toString('hex') },
    });
    expect(compiled[1]).toMatchObject({ headers: { run: '' } });
    // The same as readTopic's own records.
    const direct = (await readTopic({ ...o, topic })).map(shape);
    expect(compiled).toEqual(direct);
  });

  it('reads from a time as readTopic does, and only what is asked for', async () => {
    const compiled = await scanned({
      ...o,
      topic,
      fromTimeMs: middle,
      headers: ['run'],
      values: false,
      readerPath: READER,
    });
    expect(compiled.map((r) => (r as { offset: number }).offset)).toEqual(
      (await readTopic({ ...o, topic, fromTimeMs: middle })).map((r) => r.offset),
    );
    expect(compiled.length).toBeGreaterThan(0);
    for (const r of compiled) expect(r).toMatchObject({ key: null, value: null });
  });

  it('fails with the reader as the reason when it cannot start', async () => {
    await expect(
      scanTopic(
        { ...o, topic, headers: [], values: false, readerPath: '/nonexistent/topic-reader' },
        () => undefined,
      ),
    ).rejects.toThrow(/the topic reader did not start.*\/nonexistent\/topic-reader/);
  });
});
