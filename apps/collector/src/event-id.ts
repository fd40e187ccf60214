/**
 * The event id of a JSON event that came without one: a UUID derived from the event's content, so
 * that a client's retry of the same request carries the same event id and the clean job's dedup
 * drops the copy. Two events with identical content (same session, type, time, seq, fields) get
 * the same id: they are indistinguishable, so that is the dedup we want.
 */

import { createHash } from 'node:crypto';

/** JSON text with object keys sorted at every level: the same value always gives the same text. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A lowercase RFC 9562 version-8 UUID from the SHA-256 of the content (event_id itself left out). */
export function derivedEventId(event: Record<string, unknown>): string {
  const { event_id: _ignored, ...rest } = event;
  const hash = createHash('sha256')
    .update('clickstream-collector-v1\n')
    .update(stableJson(rest))
    .digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x80; // version 8
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80; // RFC variant
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
