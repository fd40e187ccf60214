import { Type } from 'avsc';
import fc from 'fast-check';
import {
  decodeEvent,
  encodeEvent,
  fingerprintOf,
  readIngestTime,
  schemaOf,
  SINGLE_OBJECT_MAGIC,
} from './wire';
import { MAX_EVENT_BYTES, SCHEMA_VERSIONS } from './types';
import { REJECT_REASONS } from '../reasons';
import { NOW, sampleEvent } from '../../test/fixtures';
import { anyEvent, validEvent } from '../../test/arbitraries';

const reasonOf = (bytes: Buffer | null | undefined, ingestTime = NOW): string => {
  const result = decodeEvent(bytes, { ingestTime });
  return result.ok ? 'ok' : result.reason;
};
const valid = (): Buffer => encodeEvent(sampleEvent());
const version = fc.constantFrom(...SCHEMA_VERSIONS);

/** A body written by a look-alike of v2 whose field `name` has another type, sent under v2's fingerprint. */
function forgedBody(name: string, type: unknown, value: unknown): Buffer {
  const schema = structuredClone(schemaOf(2)) as {
    fields: Array<{ name: string; type: unknown; default?: unknown }>;
  };
  for (const field of schema.fields) {
    if (field.name === name) {
      field.type = type;
      delete field.default;
    }
  }
  const forged = Type.forSchema(schema as Parameters<typeof Type.forSchema>[0], {
    wrapUnions: false,
  });
  const body = forged.toBuffer({ ...sampleEvent(), [name]: value });
  return Buffer.concat([SINGLE_OBJECT_MAGIC, fingerprintOf(2), body]);
}

/** Zigzag varint of a long, exactly as Java writes it (BigInt, no float rounding). */
function javaLong(n: bigint): Buffer {
  let z = BigInt.asUintN(64, (n << 1n) ^ (n >> 63n));
  const out: number[] = [];
  do {
    const low = Number(z & 0x7fn);
    z >>= 7n;
    out.push(z > 0n ? low | 0x80 : low);
  } while (z > 0n);
  return Buffer.from(out);
}

describe('encodeEvent / decodeEvent', () => {
  it('round-trips a canonical event', () => {
    const event = sampleEvent({ ingest_time: NOW });
    const bytes = encodeEvent(event);
    expect(bytes.subarray(0, 2)).toEqual(SINGLE_OBJECT_MAGIC);
    expect(bytes.subarray(2, 10)).toEqual(fingerprintOf(2));
    expect(decodeEvent(bytes, { ingestTime: NOW })).toEqual({ ok: true, event, version: 2 });
  });

  it('reads v1 data in the canonical shape with device and ingest_time null', () => {
    const event = sampleEvent({ device: 'tablet', ingest_time: NOW });
    const bytes = encodeEvent(event, 1);
    expect(bytes.subarray(2, 10)).toEqual(fingerprintOf(1));
    expect(decodeEvent(bytes, { ingestTime: NOW })).toEqual({
      ok: true,
      event: { ...event, device: null, ingest_time: null },
      version: 1,
    });
  });

  it('round-trips every contract-valid event with every version', () => {
    fc.assert(
      fc.property(validEvent, version, (event, v) => {
        const expected = v === 1 ? { ...event, device: null, ingest_time: null } : event;
        expect(decodeEvent(encodeEvent(event, v), { ingestTime: NOW })).toEqual({
          ok: true,
          event: expected,
          version: v,
        });
      }),
    );
  });

  it('gives the parsed .avsc of each version', () => {
    expect(schemaOf(1)).toMatchObject({ type: 'record', name: 'ClickstreamEvent' });
    expect(JSON.stringify(schemaOf(2))).toContain('ingest_time');
    expect(JSON.stringify(schemaOf(1))).not.toContain('ingest_time');
  });

  it('refuses to encode a value that does not fit the schema, naming the field', () => {
    expect(() => encodeEvent({ ...sampleEvent(), quantity: 1.5 })).toThrow(/quantity/);
    expect(() => encodeEvent({ ...sampleEvent(), event_type: 'refund' as never })).toThrow(
      /event_type/,
    );
    expect(() => encodeEvent(sampleEvent({ amount_cents: -(2 ** 52) - 1 }))).toThrow(
      /amount_cents/,
    );
  });

  it('encodes events of any size, and the decoder calls the big ones oversized', () => {
    for (const size of [MAX_EVENT_BYTES - 200, MAX_EVENT_BYTES + 1, 3 * MAX_EVENT_BYTES]) {
      const event = sampleEvent({ page: 'x'.repeat(size) });
      const bytes = encodeEvent(event);
      expect(bytes.subarray(2, 10)).toEqual(fingerprintOf(2));
      const result = decodeEvent(bytes, { ingestTime: NOW });
      if (bytes.length <= MAX_EVENT_BYTES) expect(result).toEqual({ ok: true, event, version: 2 });
      else expect(result).toMatchObject({ ok: false, reason: 'oversized' });
    }
  });

  it('returns independent buffers', () => {
    const a = encodeEvent(sampleEvent({ seq: 1 }));
    const b = encodeEvent(sampleEvent({ seq: 2 }));
    expect(decodeEvent(a, { ingestTime: NOW })).toMatchObject({ ok: true, event: { seq: 1 } });
    expect(decodeEvent(b, { ingestTime: NOW })).toMatchObject({ ok: true, event: { seq: 2 } });
  });

  it('uses Date.now() as the ingest time by default', () => {
    expect(decodeEvent(encodeEvent(sampleEvent({ event_time: Date.now() }))).ok).toBe(true);
    expect(reasonOf(encodeEvent(sampleEvent({ event_time: Date.now() })), 0)).toBe(
      'absurd_event_time',
    );
  });
});

describe('decodeEvent rejections', () => {
  it.each<[string, string, () => Buffer | null | undefined]>([
    ['null', 'empty', () => null],
    ['undefined', 'empty', () => undefined],
    ['zero bytes', 'empty', () => Buffer.alloc(0)],
    [
      'a value over MAX_EVENT_BYTES',
      'oversized',
      () => Buffer.concat([valid(), Buffer.alloc(MAX_EVENT_BYTES)]),
    ],
    ['JSON', 'bad_magic', () => Buffer.from('{"event_id":"x"}')],
    ['a bare Avro body', 'bad_magic', () => valid().subarray(10)],
    ['C3 02', 'bad_magic', () => Buffer.from([0xc3, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0])],
    ['one byte C3', 'truncated', () => Buffer.from([0xc3])],
    ['a header cut short', 'truncated', () => valid().subarray(0, 7)],
    [
      'an unknown fingerprint',
      'unknown_fingerprint',
      () => Buffer.concat([SINGLE_OBJECT_MAGIC, Buffer.alloc(8, 7), valid().subarray(10)]),
    ],
    ['a body cut short', 'truncated', () => valid().subarray(0, valid().length - 1)],
    ['a header only', 'truncated', () => valid().subarray(0, 10)],
    ['a byte after the record', 'trailing_bytes', () => Buffer.concat([valid(), Buffer.from([0])])],
    ['an enum index out of range', 'malformed_body', () => forgedBody('event_type', 'long', 99)],
    ['a union index out of range', 'malformed_body', () => forgedBody('device', 'long', 5)],
    [
      'a contract violation',
      'unknown_currency',
      () => encodeEvent(sampleEvent({ currency: 'XBT' })),
    ],
  ])('%s -> %s', (_name, reason, bytes) => {
    expect(reasonOf(bytes())).toBe(reason);
  });

  it('rejects a long that avsc would read with its sign flipped, instead of accepting it as positive', () => {
    // A foreign writer's amount_cents of -(2^52 + 1), spliced in place of a sentinel amount.
    const sentinel = Buffer.concat([Buffer.from([0x02]), javaLong(123_456_789n)]); // union branch 1, then the long
    const honest = encodeEvent(sampleEvent({ amount_cents: 123_456_789 }));
    const at = honest.indexOf(sentinel, 10);
    expect(at).toBeGreaterThan(10);
    const forged = Buffer.concat([
      honest.subarray(0, at),
      Buffer.from([0x02]),
      javaLong(-(2n ** 52n) - 1n),
      honest.subarray(at + sentinel.length),
    ]);
    expect(reasonOf(honest)).toBe('ok');
    expect(decodeEvent(forged, { ingestTime: NOW })).toEqual({
      ok: false,
      reason: 'invalid_field',
      detail: expect.stringContaining('amount_cents'),
    });
  });

  it('says what it saw in the detail', () => {
    const result = decodeEvent(
      Buffer.concat([SINGLE_OBJECT_MAGIC, Buffer.from('0123456789abcdef', 'hex')]),
      { ingestTime: NOW },
    );
    expect(result).toEqual({
      ok: false,
      reason: 'unknown_fingerprint',
      detail: expect.stringContaining('0123456789abcdef'),
    });
  });
});

describe('decodeEvent never throws', () => {
  const isReason = (r: ReturnType<typeof decodeEvent>): boolean =>
    r.ok || (REJECT_REASONS as readonly string[]).includes(r.reason);

  it('on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) =>
        isReason(decodeEvent(Buffer.from(bytes), { ingestTime: NOW })),
      ),
      {
        numRuns: 2000,
      },
    );
  });

  it('on arbitrary bodies behind a released header', () => {
    fc.assert(
      fc.property(version, fc.uint8Array({ maxLength: 300 }), (v, body) => {
        const bytes = Buffer.concat([SINGLE_OBJECT_MAGIC, fingerprintOf(v), Buffer.from(body)]);
        return isReason(decodeEvent(bytes, { ingestTime: NOW }));
      }),
      { numRuns: 2000 },
    );
  });

  it('on arbitrary mutations of valid encodings', () => {
    const mutation = fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) });
    fc.assert(
      fc.property(
        anyEvent,
        version,
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (event, v, mutations) => {
          const bytes = encodeEvent(event, v);
          for (const { at, byte } of mutations) bytes[at % bytes.length] = byte;
          return isReason(decodeEvent(bytes, { ingestTime: NOW }));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('on inputs that are not bytes at all', () => {
    for (const input of [42, 'C301', {}, [0xc3, 0x01], new Uint16Array(4)]) {
      expect(isReason(decodeEvent(input as unknown as Buffer))).toBe(true);
    }
  });

  it('and every truncation of a valid encoding is "truncated"', () => {
    fc.assert(
      fc.property(anyEvent, version, fc.nat(), (event, v, cut) => {
        const bytes = encodeEvent(event, v);
        const length = 1 + (cut % (bytes.length - 1));
        expect(reasonOf(bytes.subarray(0, length))).toBe('truncated');
      }),
      { numRuns: 1000 },
    );
  });

  it('and every extension of a valid encoding is "trailing_bytes"', () => {
    fc.assert(
      fc.property(
        anyEvent,
        version,
        fc.uint8Array({ minLength: 1, maxLength: 40 }),
        (event, v, extra) => {
          expect(reasonOf(Buffer.concat([encodeEvent(event, v), Buffer.from(extra)]))).toBe(
            'trailing_bytes',
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('and a Uint8Array view decodes like a Buffer', () => {
    const bytes = valid();
    const copy = new Uint8Array(bytes.length + 4).subarray(2, 2 + bytes.length);
    copy.set(bytes);
    expect(decodeEvent(copy as Buffer, { ingestTime: NOW }).ok).toBe(true);
  });
});

describe('readIngestTime: only the ingest_time, as decodeEvent would read it', () => {
  it('reads v2 ingest_time, null from v2 without one, null from v1', () => {
    const e = { ...sampleEvent(), ingest_time: NOW + 7 };
    expect(readIngestTime(encodeEvent(e, 2))).toEqual({
      ok: true,
      ingestTime: NOW + 7,
      version: 2,
    });
    expect(readIngestTime(encodeEvent({ ...e, ingest_time: null }, 2))).toEqual({
      ok: true,
      ingestTime: null,
      version: 2,
    });
    expect(readIngestTime(encodeEvent(e, 1))).toEqual({ ok: true, ingestTime: null, version: 1 });
  });

  it.each<[string, () => Buffer | null, string]>([
    ['no value', () => null, 'empty'],
    ['zero bytes', () => Buffer.alloc(0), 'empty'],
    ['other magic', () => Buffer.from('{"json":true}'), 'bad_magic'],
    [
      'an unknown fingerprint',
      () => Buffer.concat([SINGLE_OBJECT_MAGIC, Buffer.alloc(9)]),
      'unknown_fingerprint',
    ],
    ['a cut body', () => valid().subarray(0, valid().length - 3), 'truncated'],
    ['a byte after the record', () => Buffer.concat([valid(), Buffer.from([0])]), 'trailing_bytes'],
  ])('%s: refused as decodeEvent refuses it', (_name, bytes, reason) => {
    const r = readIngestTime(bytes());
    expect(r.ok ? 'ok' : r.reason).toBe(reason);
    expect(reasonOf(bytes())).toBe(reason);
  });

  it('agrees with decodeEvent on whole and mutated encodings of any event', () => {
    fc.assert(
      fc.property(
        anyEvent,
        version,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
        (event, v, edits) => {
          const bytes = Buffer.from(encodeEvent(event, v));
          for (const [at, byte] of edits) {
            const i = 10 + (at % (bytes.length - 10));
            bytes[i] = byte;
          }
          const full = decodeEvent(bytes, { ingestTime: NOW });
          const r = readIngestTime(bytes);
          // A body decodeEvent reads whole (valid or not by the contract) has its ingest_time read.
          if (full.ok)
            expect(r).toEqual({ ok: true, ingestTime: full.event.ingest_time, version: v });
          if (edits.length === 0)
            expect(r).toEqual({
              ok: true,
              ingestTime: v === 2 ? event.ingest_time : null,
              version: v,
            });
          // A failure is decodeEvent's, with its reason.
          if (!r.ok) expect(full.ok ? 'ok' : full.reason).toBe(r.reason);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
