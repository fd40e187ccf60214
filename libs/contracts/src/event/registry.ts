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
  const entries = new Map<SchemaVersion, SchemaEntry>();
  for (const version of SCHEMA_VERSIONS) {
    const schema = deepFreeze(JSON.parse(fs.readFileSync(schemaFile(version), 'utf8')) as object);
    // avsc copies what it needs from the schema, so freezing the shared JSON does not bother it.
    const type = Type.forSchema(structuredClone(schema) as Parameters<typeof Type.forSchema>[0], {
      wrapUnions: false,
    });
    // avsc's schema() without options is the Parsing Canonical Form (checked against the spec's vectors in crc64.spec.ts).
    const canonicalForm = JSON.stringify(type.schema());
    entries.set(version, {
      version,
      schema,
      type,
      canonicalForm,
      fingerprint: crc64AvroBytes(canonicalForm),
      toCanonical: undefined,
    });
  }
  const canonical = entries.get(CANONICAL_VERSION);
  if (!canonical)
    throw new Error(`CANONICAL_VERSION ${CANONICAL_VERSION} is not in SCHEMA_VERSIONS`);
  for (const entry of entries.values()) {
    if (entry.version !== CANONICAL_VERSION)
      entry.toCanonical = canonical.type.createResolver(entry.type);
  }
  return entries;
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
