/** The released Avro schemas, loaded once: parsed .avsc, avsc types, fingerprints and resolvers into the canonical version. */

import * as fs from 'fs';
import * as path from 'path';
import { Type } from 'avsc';
import { crc64AvroBytes } from './crc64';
import { CANONICAL_VERSION, SCHEMA_VERSIONS, type SchemaVersion } from './types';

export interface SchemaEntry {
  version: SchemaVersion;
  /** The .avsc file as parsed JSON (deep-frozen: shared by every caller). */
  schema: object;
  /** avsc type of this version; nullable unions read and write plain `null | T`. */
  type: Type;
  /** Parsing Canonical Form, the input of the fingerprint. */
  canonicalForm: string;
  /** CRC-64-AVRO of the canonical form, little-endian, as in the single-object header. */
  fingerprint: Buffer;
  /** Reads data written with this version as the canonical version (undefined for the canonical one itself). */
  toCanonical: ReturnType<Type['createResolver']> | undefined;
  /**
   * Reads only ingest_time out of data written with this version: a record of that one field (the
   * canonical version's, null by default, so v1 data reads null), resolved against this version,
   * so avsc skips every other field instead of building it (wire.ts, readIngestTime).
   */
  ingestTime: { type: Type; resolver: ReturnType<Type['createResolver']> };
}

/** Works from src (ts-jest) and from dist (the build copies src/event/schemas to dist/event/schemas). */
export const SCHEMA_DIR = path.join(__dirname, 'schemas');

export function schemaFile(version: SchemaVersion): string {
  return path.join(SCHEMA_DIR, `clickstream-event-v${version}.avsc`);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function load(): Map<SchemaVersion, SchemaEntry> {
  const parsed = SCHEMA_VERSIONS.map((version) => {
    const schema = deepFreeze(JSON.parse(fs.readFileSync(schemaFile(version), 'utf8')) as object);
    // avsc copies what it needs from the schema, so freezing the shared JSON does not bother it.
    const type = Type.forSchema(structuredClone(schema) as Parameters<typeof Type.forSchema>[0], {
      wrapUnions: false,
    });
    // avsc's schema() without options is the Parsing Canonical Form (checked against the spec's vectors in crc64.spec.ts).
    const canonicalForm = JSON.stringify(type.schema());
    return { version, schema, type, canonicalForm, fingerprint: crc64AvroBytes(canonicalForm) };
  });
  const canonical = parsed.find((e) => e.version === CANONICAL_VERSION);
  if (!canonical)
    throw new Error(`CANONICAL_VERSION ${CANONICAL_VERSION} is not in SCHEMA_VERSIONS`);
  const ingestTime = ingestTimeType(canonical.schema);
  return new Map(
    parsed.map((e) => [
      e.version,
      {
        ...e,
        toCanonical:
          e.version === CANONICAL_VERSION ? undefined : canonical.type.createResolver(e.type),
        ingestTime: { type: ingestTime, resolver: ingestTime.createResolver(e.type) },
      },
    ]),
  );
}

/** The canonical record with its ingest_time field alone (same name, so it resolves against every version). */
function ingestTimeType(canonical: object): Type {
  const { fields, ...record } = structuredClone(canonical) as {
    fields: { name: string }[];
  };
  const field = fields.find((f) => f.name === 'ingest_time');
  if (!field) throw new Error(`the canonical schema v${CANONICAL_VERSION} has no ingest_time`);
  return Type.forSchema({ ...record, fields: [field] } as Parameters<typeof Type.forSchema>[0], {
    wrapUnions: false,
  });
}

const ENTRIES = load();

export function schemaEntry(version: SchemaVersion): SchemaEntry {
  const entry = ENTRIES.get(version);
  if (!entry)
    throw new Error(
      `unknown schema version ${String(version)}; released: ${SCHEMA_VERSIONS.join(', ')}`,
    );
  return entry;
}

export function schemaEntries(): readonly SchemaEntry[] {
  return [...ENTRIES.values()];
}
