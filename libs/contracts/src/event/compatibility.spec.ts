import { createHash } from 'crypto';
import * as fs from 'fs';
import fc from 'fast-check';
import { SCHEMA_DIR, schemaEntry } from './registry';
import { CANONICAL_VERSION, SCHEMA_VERSIONS, type ClickEvent, type SchemaVersion } from './types';
import { anyEvent } from '../../test/arbitraries';

/**
 * Frozen record of every released schema. Releasing v3 means adding a line here; editing a released
 * .avsc (even a doc or a default, which resolution depends on) makes this spec fail.
 * sha256 is over JSON.stringify of the parsed file, so only reformatting whitespace is allowed.
 */
const RELEASED: Record<number, { fingerprint: string; sha256: string }> = {
  1: {
    fingerprint: 'b8239467cb1ffca8',
    sha256: '84d7607f63a88cf770b4e02db317909ace514b7d19143c8084a9b341b98c73f7',
  },
  2: {
    fingerprint: '97001d50aa5a0a5a',
    sha256: '08e968c324f0c09f25fac61684fc574a69ccfdf2268c87a15451fce00369d2d5',
  },
};

const pairs: Array<[writer: SchemaVersion, reader: SchemaVersion]> = SCHEMA_VERSIONS.flatMap((w) =>
  SCHEMA_VERSIONS.map((r): [SchemaVersion, SchemaVersion] => [w, r]),
);

function fieldNames(version: SchemaVersion): string[] {
  return (schemaEntry(version).schema as { fields: Array<{ name: string }> }).fields.map(
    (f) => f.name,
  );
}

/** What a reader of `reader` sees of an event written with `writer`: its own fields, defaults for the rest. */
function projection(
  event: ClickEvent,
  writer: SchemaVersion,
  reader: SchemaVersion,
): Record<string, unknown> {
  const writerFields = new Set(fieldNames(writer));
  const out: Record<string, unknown> = {};
  for (const name of fieldNames(reader)) {
    // Every field beyond v1 is nullable with default null (the versioning rule in the README).
    out[name] = writerFields.has(name) ? event[name as keyof ClickEvent] : null;
  }
  return out;
}

describe('schema compatibility', () => {
  it.each(SCHEMA_VERSIONS.map((v) => [v]))('v%s is frozen as released', (version) => {
    const entry = schemaEntry(version);
    const frozen = RELEASED[version];
    expect(frozen).toBeDefined();
    expect(entry.fingerprint.toString('hex')).toBe(frozen?.fingerprint);
    expect(createHash('sha256').update(JSON.stringify(entry.schema)).digest('hex')).toBe(
      frozen?.sha256,
    );
  });

  it('has exactly one .avsc per released version, all fingerprints distinct, the newest canonical', () => {
    const files = fs
      .readdirSync(SCHEMA_DIR)
      .filter((f) => f.endsWith('.avsc'))
      .sort();
    expect(files).toEqual(SCHEMA_VERSIONS.map((v) => `clickstream-event-v${v}.avsc`).sort());
    const prints = new Set(SCHEMA_VERSIONS.map((v) => schemaEntry(v).fingerprint.toString('hex')));
    expect(prints.size).toBe(SCHEMA_VERSIONS.length);
    expect(CANONICAL_VERSION).toBe(Math.max(...SCHEMA_VERSIONS));
  });

  it.each(pairs)('a v%s writer is read by a v%s reader (avsc resolver)', (writer, reader) => {
    const w = schemaEntry(writer).type;
    const r = schemaEntry(reader).type;
    const resolver = r.createResolver(w);
    fc.assert(
      fc.property(anyEvent, (event) => {
        const read = r.fromBuffer(w.toBuffer(event), resolver) as Record<string, unknown>;
        expect({ ...read }).toEqual(projection(event, writer, reader));
      }),
      { numRuns: 200 },
    );
  });
});
