import type { InRecord } from '@clickstream/kafka-tx';
import { RecordPacker, unpackRecords, type RecordChunk } from './record-chunks';

function rec(over: Partial<InRecord> = {}): InRecord {
  return {
    topic: 't',
    partition: 3,
    offset: 2 ** 40 + 7,
    key: Buffer.from('k'),
    value: Buffer.from([0xc3, 0x01, 0xff]),
    headers: { a: Buffer.from('1'), b: Buffer.from('two') },
    timestamp: 1_700_000_000_123,
    ...over,
  };
}

function roundTrip(records: InRecord[], headers: string[], chunkBytes?: number): InRecord[] {
  const chunks: RecordChunk[] = [];
  const packer = new RecordPacker(headers, (c) => chunks.push(c), chunkBytes);
  for (const r of records) packer.add(r);
  packer.end();
  const out: InRecord[] = [];
  // Copies, as a reducer must: the views point into the chunk.
  for (const c of chunks)
    unpackRecords(c, 't', headers, (r) =>
      out.push({
        ...r,
        key: r.key && Buffer.from(r.key),
        value: r.value && Buffer.from(r.value),
        headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, Buffer.from(v)])),
      }),
    );
  return out;
}

describe('RecordPacker / unpackRecords', () => {
  it('no record makes no chunk', () => {
    const chunks: RecordChunk[] = [];
    const packer = new RecordPacker([], (c) => chunks.push(c));
    packer.end();
    expect(chunks).toEqual([]);
  });

  it('gives back each record as it was: null apart from empty, the named headers only, absent ones absent', () => {
    const records = [
      rec(),
      rec({ key: null, value: Buffer.alloc(0), headers: { a: Buffer.alloc(0) } }),
      rec({ key: Buffer.alloc(0), value: null, headers: { c: Buffer.from('dropped') } }),
      rec({ partition: 0, offset: 0, timestamp: -1 }),
    ];
    expect(roundTrip(records, ['a', 'b'])).toEqual([
      records[0],
      { ...records[1], headers: { a: Buffer.alloc(0) } },
      { ...records[2], headers: {} },
      records[3],
    ]);
  });

  it('splits records over chunks, and a record larger than a chunk gets a chunk of its own', () => {
    const big = rec({ value: Buffer.alloc(300, 7) });
    const records = [rec(), big, rec({ offset: 1 }), rec({ offset: 2 })];
    const chunks: RecordChunk[] = [];
    const packer = new RecordPacker(['a'], (c) => chunks.push(c), 64);
    for (const r of records) packer.add(r);
    packer.end();
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.reduce((n, c) => n + c.records, 0)).toBe(4);
    const { b: _b, ...onlyA } = rec().headers;
    expect(roundTrip(records, ['a'], 64)).toEqual(records.map((r) => ({ ...r, headers: onlyA })));
  });

  it('a chunk whose record count does not match what was packed is an error', () => {
    const chunks: RecordChunk[] = [];
    const packer = new RecordPacker([], (c) => chunks.push(c));
    packer.add(rec());
    packer.end();
    const chunk = chunks[0] as RecordChunk;
    expect(() => unpackRecords({ ...chunk, records: 2 }, 't', [], () => undefined)).toThrow(
      /holds 1 record\(s\), 2 were packed/,
    );
  });
});
