/** Builds poison: bytes the front door must reject, each with the exact reason decodeEvent gives for them. */

import {
  MAX_EVENT_BYTES,
  SCHEMA_VERSIONS,
  SINGLE_OBJECT_HEADER_BYTES,
  decodeEvent,
  fingerprintOf,
  type ClickEvent,
  type RejectReason,
} from '@clickstream/contracts';
import type { Prng } from './prng';

const HEADER_BYTES = SINGLE_OBJECT_HEADER_BYTES;
const KNOWN_FINGERPRINTS: readonly Buffer[] = SCHEMA_VERSIONS.map((v) => fingerprintOf(v));

/** Random garbage, 1..256 bytes, whose first byte is never C3, so it can never pass for single-object encoding. */
export function randomBytesPoison(prng: Prng): Buffer {
  const bytes = prng.bytes(prng.int(1, 256));
  if (bytes[0] === 0xc3) bytes[0] = 0x3c;
  return bytes;
}

/**
 * A valid encoding cut short inside its body. Removing trailing bytes leaves a prefix of a valid
 * encoding, so the decoder runs out of bytes; the cut is still checked with decodeEvent and cut
 * further until the decoder agrees, because correctness of the ledger matters more than speed here.
 */
export function truncatedPoison(encoded: Buffer, prng: Prng, ingestTime: number): Buffer {
  const body = encoded.length - HEADER_BYTES;
  let cut = prng.int(1, Math.max(1, body));
  for (; cut <= body; cut++) {
    const bytes = Buffer.from(encoded.subarray(0, encoded.length - cut));
    const result = decodeEvent(bytes, { ingestTime });
    if (!result.ok && result.reason === 'truncated') return bytes;
  }
  // Header only: the decoder reads a known fingerprint and then no body at all.
  return Buffer.from(encoded.subarray(0, HEADER_BYTES));
}

/** The magic and a body of a released version, but a fingerprint no released version has. */
export function unknownFingerprintPoison(encoded: Buffer, prng: Prng): Buffer {
  const bytes = Buffer.from(encoded);
  let fingerprint = prng.bytes(8);
  while (KNOWN_FINGERPRINTS.some((f) => f.equals(fingerprint))) fingerprint = prng.bytes(8);
  fingerprint.copy(bytes, 2);
  return bytes;
}

/** What a misconfigured writer sends: a schema-registry wire prefix, plain JSON, or a wrong format version byte. */
const BAD_MAGICS: readonly (readonly [number, number])[] = [
  [0x00, 0x00], // Confluent schema-registry framing (magic 0 + schema id)
  [0x7b, 0x22], // '{"' : JSON
  [0xc3, 0x02], // right marker, unknown format version
  [0x01, 0xc3], // swapped
];

export function badMagicPoison(encoded: Buffer, prng: Prng): Buffer {
  const bytes = Buffer.from(encoded);
  const [a, b] = prng.pick(BAD_MAGICS);
  bytes[0] = a;
  bytes[1] = b;
  return bytes;
}

/**
 * Bytes that no reader can take as exactly one record, each with its own reason: nothing at all, too
 * many bytes, a whole record with bytes after it, a body whose first length is negative.
 */
export const MALFORMATIONS = [
  'empty',
  'oversized',
  'trailing_bytes',
  'malformed_body',
] as const satisfies readonly RejectReason[];
export type Malformation = (typeof MALFORMATIONS)[number];

/**
 * Malformed bytes made from a valid encoding. Each is checked with decodeEvent, like the truncated
 * poison, and the checked construction is used when a random one would not give its reason.
 */
export function malformedPoison(
  kind: Malformation,
  encoded: Buffer,
  prng: Prng,
  ingestTime: number,
): Buffer {
  const gives = (bytes: Buffer): boolean => {
    const result = decodeEvent(bytes, { ingestTime });
    return !result.ok && result.reason === kind;
  };
  switch (kind) {
    case 'empty':
      return Buffer.alloc(0);
    case 'oversized':
      // A valid record padded past the limit: the size alone decides, before any byte is read.
      return Buffer.concat([
        encoded,
        Buffer.alloc(MAX_EVENT_BYTES + 1 - encoded.length + prng.int(0, 1024)),
      ]);
    case 'trailing_bytes': {
      const bytes = Buffer.concat([encoded, prng.bytes(prng.int(1, 8))]);
      return gives(bytes) ? bytes : Buffer.concat([encoded, Buffer.from([0])]);
    }
    case 'malformed_body': {
      // The body starts with event_id's length; an odd zigzag varint byte is a negative length.
      const bytes = Buffer.from(encoded);
      bytes[HEADER_BYTES] = 2 * prng.int(0, 63) + 1;
      if (gives(bytes)) return bytes;
      bytes[HEADER_BYTES] = 0x01;
      return bytes;
    }
  }
}

/** Contract violations an event can decode with; each breaks exactly one rule, so its reason is certain. */
export const CONTRACT_BREAKS = [
  'missing_product',
  'invalid_quantity',
  'missing_amount',
  'negative_amount',
  'unknown_currency',
  'absurd_event_time',
  'invalid_field',
] as const satisfies readonly RejectReason[];
export type ContractBreak = (typeof CONTRACT_BREAKS)[number];

const UNKNOWN_CURRENCIES = ['XBT', 'ZZZ', 'eur', 'EURO', 'US$'] as const;

/**
 * Rewrites a well-formed event so that it breaks one rule. The caller builds the base event with a
 * type that the rule applies to (a product event for missing_product, a cart event for
 * invalid_quantity, a payment for the amount and currency rules) and an absurd event_time for
 * absurd_event_time.
 */
export function breakContract(kind: ContractBreak, event: ClickEvent, prng: Prng): ClickEvent {
  switch (kind) {
    case 'missing_product':
      return { ...event, product_id: null };
    case 'invalid_quantity':
      return { ...event, quantity: -prng.int(0, 3) };
    case 'missing_amount':
      return prng.chance(0.5) ? { ...event, amount_cents: null } : { ...event, currency: null };
    case 'invalid_field':
      // A uuid in capitals: the contract has one spelling, because dedup compares strings.
      return { ...event, event_id: capitalised(event.event_id) };
    case 'negative_amount':
      return { ...event, amount_cents: -prng.int(1, 100_000) };
    case 'unknown_currency':
      return { ...event, currency: prng.pick(UNKNOWN_CURRENCIES) };
    case 'absurd_event_time':
      return event;
  }
}

/** The uuid in capitals; one without a letter (all digits) gets a trailing character instead. */
function capitalised(uuid: string): string {
  const upper = uuid.toUpperCase();
  return upper === uuid ? `${uuid}0` : upper;
}
