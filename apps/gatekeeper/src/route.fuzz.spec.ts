import fc from 'fast-check';
import {
  HEADERS,
  MAX_EVENT_BYTES,
  REJECT_REASONS,
  encodeEvent,
  fingerprintOf,
} from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import { NOW, sampleEvent } from '../test/fixtures';
import { CLIPPED_VALUE_BYTES, routeRecord } from './route';

const topics = { valid: 'valid', dlq: 'dlq' };
const bytes = (maxLength: number) => fc.uint8Array({ maxLength }).map((a) => Buffer.from(a));

const headersArb = fc.dictionary(
  fc.oneof(
    fc.constantFrom(HEADERS.seq, HEADERS.runId, HEADERS.reason, HEADERS.sourceOffset),
    fc.string({ maxLength: 12 }),
  ),
  bytes(24),
  { maxKeys: 5 },
);

/** Values that reach deeper and deeper into the decoder: noise, a magic prefix, a real fingerprint, a mutated real event. */
const valueArb: fc.Arbitrary<Buffer | null> = fc.oneof(
  fc.constant(null),
  bytes(64),
  bytes(64).map((b) => Buffer.concat([Buffer.from([0xc3, 0x01]), b])),
  fc
    .constantFrom(1 as const, 2 as const)
    .chain((v) =>
      bytes(120).map((b) => Buffer.concat([Buffer.from([0xc3, 0x01]), fingerprintOf(v), b])),
    ),
  fc.tuple(fc.nat(), fc.nat(255), fc.nat()).map(([pos, byte, seq]) => {
    const good = encodeEvent(sampleEvent('add_to_cart', seq, 'run', NOW));
    const out = Buffer.from(good);
    out[pos % out.length] = byte;
    return out;
  }),
  fc
    .integer({ min: MAX_EVENT_BYTES - 2, max: MAX_EVENT_BYTES + 2 })
    .map((n) => Buffer.alloc(n, 0xc3)),
);

const recordArb: fc.Arbitrary<InRecord> = fc.record({
  topic: fc.constant('raw'),
  partition: fc.nat(63),
  offset: fc.maxSafeNat(),
  key: fc.option(bytes(16), { nil: null }),
  value: valueArb,
  headers: headersArb,
  timestamp: fc.oneof(fc.constant(NOW), fc.integer({ min: -1, max: 2 ** 45 })),
});

describe('route under arbitrary input', () => {
  it('never throws, always yields one record on the raw partition, and dead letters keep their bytes', () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const { out, outcome } = routeRecord(record, topics);
        expect(out.partition).toBe(record.partition);
        expect(out.key).toEqual(record.key);
        if (outcome.kind === 'dead_letter') {
          expect(REJECT_REASONS).toContain(outcome.reason);
          expect(out.topic).toBe('dlq');
          expect(out.value).toBe(record.value);
          expect(out.headers?.[HEADERS.reason]?.toString()).toBe(outcome.reason);
        } else {
          expect(out.topic).toBe('valid');
        }
        for (const [name, value] of Object.entries(record.headers)) {
          if (
            !name.startsWith('cs-reason') &&
            !name.startsWith('cs-source') &&
            !name.startsWith('cs-detail')
          )
            expect(out.headers?.[name]).toEqual(value);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('accepts every generated valid event whatever its headers, and routes the same record the same way twice', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.constantFrom('page_view', 'product_view', 'add_to_cart', 'payment_failed' as const),
        headersArb,
        (seq, type, headers) => {
          const record: InRecord = {
            topic: 'raw',
            partition: 1,
            offset: seq,
            key: null,
            value: encodeEvent(sampleEvent(type, seq, 'run', NOW)),
            headers,
            timestamp: NOW,
          };
          const first = routeRecord(record, topics);
          expect(first.outcome.kind).toBe('valid');
          expect(routeRecord(record, topics)).toEqual(first);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('handles a record far larger than the contract allows', () => {
    const huge = Buffer.alloc(8 * 1024 * 1024, 0xc3);
    const { out, outcome } = routeRecord(
      {
        topic: 'raw',
        partition: 0,
        offset: 0,
        key: null,
        value: huge,
        headers: {},
        timestamp: NOW,
      },
      topics,
    );
    expect(outcome).toMatchObject({ kind: 'dead_letter', reason: 'oversized' });
    // Too large to forward whole (see MAX_OUTPUT_BYTES): a clipped prefix of the original bytes.
    expect(out.value?.length).toBe(CLIPPED_VALUE_BYTES);
    expect(out.value?.equals(huge.subarray(0, CLIPPED_VALUE_BYTES))).toBe(true);
  });
});
