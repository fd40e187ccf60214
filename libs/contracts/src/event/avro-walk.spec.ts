import fc from 'fast-check';
import { walkAvro } from './avro-walk';
import { decodeEvent, encodeEvent, schemaOf, SINGLE_OBJECT_MAGIC, fingerprintOf } from './wire';
import { schemaEntry } from './registry';
import { SCHEMA_VERSIONS } from './types';
import { NOW, sampleEvent } from '../../test/fixtures';
import { anyEvent } from '../../test/arbitraries';

const HEADER = 10;
/** The v2 body of the sample event, and where its first field (event_id: length, then 36 bytes) starts. */
const body = (): Buffer => encodeEvent(sampleEvent()).subarray(HEADER);
const framed = (b: Buffer): Buffer => Buffer.concat([SINGLE_OBJECT_MAGIC, fingerprintOf(2), b]);
const reasonOf = (b: Buffer): string => {
  const r = decodeEvent(framed(b), { ingestTime: NOW });
  return r.ok ? 'ok' : r.reason;
};
/** The body with its first field's length varint (one byte, 72 = zigzag(36)) replaced. */
const withEventIdLength = (varint: number[]): Buffer =>
  Buffer.concat([Buffer.from(varint), body().subarray(1)]);

describe('walkAvro and the reasons it gives the gatekeeper: one row per way a body can be malformed', () => {
  it.each<[string, () => Buffer, 'truncated' | 'malformed_body']>([
    ['a negative string length', () => withEventIdLength([0x05]), 'malformed_body'],
    ['a negative length of -1', () => withEventIdLength([0x01]), 'malformed_body'],
    ['a length past the end', () => withEventIdLength([0xd0, 0x0f]), 'truncated'],
    [
      'an overlong length varint (11 bytes)',
      () => withEventIdLength([...Array(10).fill(0xff), 0x01]),
      'malformed_body',
    ],
    [
      'a varint cut off by the end',
      () => withEventIdLength([0xff, 0xff]).subarray(0, 2),
      'truncated',
    ],
    ['an empty body', () => Buffer.alloc(0), 'truncated'],
  ])('%s -> %s', (_name, bytes, reason) => {
    expect(reasonOf(bytes())).toBe(reason);
  });

  it('tells a bad union or enum index from a short body', () => {
    const schema = schemaOf(2);
    const ok = walkAvro(schema, body());
    expect(ok).toEqual({ ok: true, end: body().length });
    // seq (a long) follows event_id; run_id, then event_type (an enum) at a known offset.
    const b = body();
    const enumAt = 1 + 36 + 1; /* seq=0? */
    expect(enumAt).toBeGreaterThan(0);
    const trailingUnion = Buffer.concat([b.subarray(0, b.length - 1), Buffer.from([0x0a])]); // ingest_time union index 5
    expect(walkAvro(schema, trailingUnion)).toMatchObject({ ok: false, kind: 'malformed' });
    expect(reasonOf(trailingUnion)).toBe('malformed_body');
  });

  it('agrees with decodeEvent on every mutated encoding: the same reason for a broken body, none for a whole one', () => {
    fc.assert(
      fc.property(
        anyEvent,
        fc.constantFrom(...SCHEMA_VERSIONS),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 3,
        }),
        (event, v, edits) => {
          const bytes = Buffer.from(encodeEvent(event, v).subarray(HEADER));
          for (const [at, byte] of edits) bytes[at % bytes.length] = byte;
          const entry = schemaEntry(v);
          const walk = walkAvro(entry.schema, bytes);
          // decodeEvent's view of the body: avsc, then the int range avsc does not check.
          const r = decodeEvent(Buffer.concat([SINGLE_OBJECT_MAGIC, fingerprintOf(v), bytes]), {
            ingestTime: NOW,
          });
          const structural =
            !r.ok && ['truncated', 'malformed_body', 'trailing_bytes'].includes(r.reason);
          const precisionLoss = !r.ok && /precision loss/.test(r.detail);
          if (!walk.ok) {
            expect([walk, structural]).toEqual([walk, true]);
            expect(r.ok ? 'ok' : r.reason).toBe(
              walk.kind === 'truncated' ? 'truncated' : 'malformed_body',
            );
          } else if (walk.end < bytes.length) {
            expect(r.ok ? 'ok' : r.reason).toBe(
              precisionLoss ? 'malformed_body' : 'trailing_bytes',
            );
          } else {
            // A complete encoding: only a long beyond 2^53, which JS cannot hold, is refused as a body.
            expect(structural && !precisionLoss).toBe(false);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
