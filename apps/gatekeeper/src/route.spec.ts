import {
  CANONICAL_VERSION,
  HEADERS,
  REJECT_REASONS,
  decodeEvent,
  encodeEvent,
  fingerprintOf,
  type RejectReason,
} from '@clickstream/contracts';
import { NOW, POISON, rawRecord, sampleEvent } from '../test/fixtures';
import { createHash } from 'crypto';
import {
  CLIPPED_KEY_BYTES,
  CLIPPED_VALUE_BYTES,
  MAX_DETAIL_CHARS,
  MAX_OUTPUT_BYTES,
  route,
  routeRecord,
} from './route';

const topics = { valid: 'v.topic', dlq: 'd.topic' };

function header(out: ReturnType<typeof route>, name: string): string | undefined {
  const value = out.headers?.[name];
  return value === undefined ? undefined : value.toString();
}

describe('route: valid events', () => {
  it('writes a v2 event to the valid topic on the raw partition, stamped with the raw timestamp', () => {
    const event = sampleEvent('add_to_cart', 7, 'run-1', NOW);
    const record = rawRecord(encodeEvent(event), { partition: 5, timestamp: NOW + 10 });
    const out = route(record, topics);
    expect(out.topic).toBe('v.topic');
    expect(out.partition).toBe(5);
    expect(out.timestamp).toBe(NOW + 10);
    const decoded = decodeEvent(out.value as Buffer, { ingestTime: NOW + 10 });
    expect(decoded).toEqual({ ok: true, version: 2, event: { ...event, ingest_time: NOW + 10 } });
  });

  it('upgrades v1 input to the canonical v2 encoding', () => {
    const event = sampleEvent('payment_succeeded', 8, 'run-1', NOW);
    const v1 = encodeEvent(event, 1);
    const routed = routeRecord(rawRecord(v1), topics);
    expect(routed.outcome).toEqual({ kind: 'valid', version: 1 });
    const value = routed.out.value as Buffer;
    expect(value.subarray(2, 10).equals(fingerprintOf(CANONICAL_VERSION))).toBe(true);
    const decoded = decodeEvent(value, { ingestTime: NOW });
    expect(decoded.ok && decoded.version).toBe(2);
    expect(decoded.ok && decoded.event).toEqual({ ...event, device: null, ingest_time: NOW });
  });

  it('overwrites an ingest_time the client sent with the Kafka timestamp', () => {
    const event = sampleEvent('page_view', 9, 'run-1', NOW, { ingest_time: 5 });
    const out = route(rawRecord(encodeEvent(event), { timestamp: NOW + 1 }), topics);
    const decoded = decodeEvent(out.value as Buffer, { ingestTime: NOW });
    expect(decoded.ok && decoded.event.ingest_time).toBe(NOW + 1);
  });

  it('keeps the key (also a null key) and every header, without aliasing the input headers', () => {
    const value = encodeEvent(sampleEvent('checkout_started', 10, 'run-1', NOW));
    const headers = {
      [HEADERS.seq]: Buffer.from('10'),
      [HEADERS.runId]: Buffer.from('run-1'),
      'x-trace': Buffer.from('abc'),
    };
    const record = rawRecord(value, { headers, key: Buffer.from('k-1') });
    const out = route(record, topics);
    expect(out.key).toEqual(Buffer.from('k-1'));
    expect(out.headers).toEqual(headers);
    expect(out.headers).not.toBe(headers);
    expect(route(rawRecord(value, { key: null }), topics).key).toBeNull();
  });

  it('keeps a header literally named __proto__ as a header', () => {
    const headers = JSON.parse('{"__proto__": "x"}') as Record<string, unknown>;
    headers['__proto__'] = Buffer.from('evil');
    const out = route(
      rawRecord(POISON.empty(1, 'r', NOW), { headers: headers as Record<string, Buffer> }),
      topics,
    );
    expect(Object.keys(out.headers ?? {})).toContain('__proto__');
    expect(Object.getPrototypeOf(out.headers)).toBeNull();
  });

  it('classifies by the bytes alone when the seq header is missing or garbled', () => {
    const value = encodeEvent(sampleEvent('page_view', 11, 'run-1', NOW));
    expect(route(rawRecord(value, { headers: {} }), topics).topic).toBe('v.topic');
    expect(
      route(rawRecord(value, { headers: { [HEADERS.seq]: Buffer.from([0xff, 0x00]) } }), topics)
        .topic,
    ).toBe('v.topic');
  });

  it('is deterministic: a replayed record gives byte-identical output', () => {
    const record = rawRecord(encodeEvent(sampleEvent('product_view', 12, 'run-1', NOW)));
    expect(route(record, topics)).toEqual(route(record, topics));
  });
});

describe('route: dead letters', () => {
  it.each([...REJECT_REASONS])(
    'sends %s poison to the DLQ with its reason, original bytes and source',
    (reason: RejectReason) => {
      const value = POISON[reason](21, 'run-1', NOW);
      const copy = Buffer.from(value);
      const record = rawRecord(value, {
        partition: 4,
        offset: 987654321,
        key: Buffer.from('sess-9'),
        timestamp: NOW,
      });
      const routed = routeRecord(record, topics);
      expect(routed.outcome).toMatchObject({ kind: 'dead_letter', reason });
      const out = routed.out;
      expect(out.topic).toBe('d.topic');
      expect(out.partition).toBe(4);
      expect(out.key).toEqual(Buffer.from('sess-9'));
      expect(out.value).toEqual(copy);
      expect(out.timestamp).toBe(NOW);
      expect(header(out, HEADERS.reason)).toBe(reason);
      expect(header(out, HEADERS.detail)?.length).toBeGreaterThan(0);
      expect(header(out, HEADERS.sourceTopic)).toBe('clickstream.raw');
      expect(header(out, HEADERS.sourcePartition)).toBe('4');
      expect(header(out, HEADERS.sourceOffset)).toBe('987654321');
      expect(header(out, HEADERS.seq)).toBe('7');
      expect(header(out, HEADERS.runId)).toBe('run-1');
    },
  );

  it('treats a null value (tombstone) as empty and keeps it null', () => {
    const out = route(rawRecord(null, { key: null, headers: {} }), topics);
    expect(out.topic).toBe('d.topic');
    expect(out.value).toBeNull();
    expect(out.key).toBeNull();
    expect(header(out, HEADERS.reason)).toBe('empty');
  });

  it('replaces a forged reason header and clips long details', () => {
    const forged = {
      [HEADERS.reason]: Buffer.from('empty'),
      [HEADERS.sourceOffset]: Buffer.from('1'),
    };
    const out = route(rawRecord(POISON.bad_magic(1, 'r', NOW), { headers: forged }), topics);
    expect(header(out, HEADERS.reason)).toBe('bad_magic');
    expect(header(out, HEADERS.sourceOffset)).toBe('1234');
    const long = route(rawRecord(POISON.invalid_field(1, 'r', NOW)), topics);
    expect((header(long, HEADERS.detail) ?? '').length).toBeLessThanOrEqual(MAX_DETAIL_CHARS);
  });

  it('judges event time against the raw timestamp, not the wall clock', () => {
    const value = encodeEvent(sampleEvent('page_view', 3, 'r', NOW));
    expect(route(rawRecord(value, { timestamp: NOW }), topics).topic).toBe('v.topic');
    expect(
      header(
        route(rawRecord(value, { timestamp: NOW + 30 * 24 * 3600 * 1000 }), topics),
        HEADERS.reason,
      ),
    ).toBe('absurd_event_time');
  });

  it('leaves out a timestamp the producer could not set again', () => {
    expect(
      route(rawRecord(POISON.empty(1, 'r', NOW), { timestamp: -1 }), topics).timestamp,
    ).toBeUndefined();
  });
});

describe('route: records too large to forward whole', () => {
  it('clips the value of a dead letter that would not fit, and says how to match it', () => {
    const value = Buffer.alloc(MAX_OUTPUT_BYTES + 50_000, 0x41);
    const out = route(rawRecord(value), topics);
    expect(header(out, HEADERS.reason)).toBe('oversized');
    expect(out.value).toEqual(value.subarray(0, CLIPPED_VALUE_BYTES));
    const detail = header(out, HEADERS.detail) ?? '';
    expect(detail).toContain(`of ${value.length} bytes`);
    expect(detail).toContain(createHash('sha256').update(value).digest('hex'));
    expect(detail.length).toBeLessThanOrEqual(MAX_DETAIL_CHARS);
    expect(header(out, HEADERS.seq)).toBe('7');
  });

  it('keeps a dead letter whole when it fits, even above MAX_EVENT_BYTES', () => {
    const value = Buffer.alloc(MAX_OUTPUT_BYTES - 10_000, 0x41);
    expect(route(rawRecord(value), topics).value).toBe(value);
  });

  it('dead-letters a valid event whose headers make it too large, keeping only the contract headers', () => {
    const value = encodeEvent(sampleEvent('page_view', 5, 'r', NOW));
    const headers = {
      [HEADERS.seq]: Buffer.from('5'),
      [HEADERS.runId]: Buffer.from('r'),
      junk: Buffer.alloc(MAX_OUTPUT_BYTES, 0x20),
    };
    const out = route(rawRecord(value, { headers }), topics);
    expect(out.topic).toBe('d.topic');
    expect(header(out, HEADERS.reason)).toBe('oversized');
    expect(out.value).toBe(value);
    expect(out.headers?.junk).toBeUndefined();
    expect(header(out, HEADERS.seq)).toBe('5');
    expect(header(out, HEADERS.detail)).toContain(
      'headers other than cs-seq and cs-run-id dropped',
    );
  });

  it('clips a huge key last', () => {
    const key = Buffer.alloc(MAX_OUTPUT_BYTES + 1, 0x6b);
    const out = route(rawRecord(Buffer.from('x'), { key }), topics);
    expect(out.key).toEqual(key.subarray(0, CLIPPED_KEY_BYTES));
    expect(out.value).toEqual(Buffer.from('x'));
    expect(header(out, HEADERS.reason)).toBe('bad_magic');
  });
});
