/** Finds an Iceberg table's current snapshot and its live data files (Hadoop catalog layout), without a JVM. */

import * as fs from 'fs';
import * as path from 'path';
import { readAvroFile } from './avro';

export interface CurrentSnapshot {
  metadataFile: string;
  formatVersion: number;
  /** Decimal string: snapshot ids are 63-bit. Null for a table with no snapshot yet. */
  snapshotId: string | null;
  manifestList: string | null;
  /** The current schema's field ids by top-level column name (what manifests' column statistics are keyed by). */
  fieldIds: Map<string, number>;
}

export interface DataFile {
  path: string;
  recordCount: number;
  /** Column statistics by field id, as the manifest holds them (single-value serialization); absent when not written. */
  lowerBounds: Map<number, Buffer>;
  upperBounds: Map<number, Buffer>;
}

export interface LiveFiles {
  data: DataFile[];
  /** Position or equality delete files: the reader does not apply them, so their presence makes the layer unknown. */
  deletes: string[];
}

// Snapshot ids exceed 2^53; quote them before JSON.parse so no digit is lost.
const ID_KEYS = /"(current-snapshot-id|snapshot-id|parent-snapshot-id)"\s*:\s*(-?\d+)/g;

/** The metadata file in force: version-hint.text names it; without a hint, the highest v<N>.metadata.json. */
export function currentMetadataFile(tablePath: string): string {
  const dir = path.join(tablePath, 'metadata');
  const hint = path.join(dir, 'version-hint.text');
  if (fs.existsSync(hint)) {
    const n = fs.readFileSync(hint, 'utf8').trim();
    if (!/^\d+$/.test(n))
      throw new Error(`${hint} holds ${JSON.stringify(n)}, not a version number`);
    return path.join(dir, `v${n}.metadata.json`);
  }
  if (!fs.existsSync(dir))
    throw new Error(`no Iceberg table at ${tablePath} (no metadata directory)`);
  const versions = fs
    .readdirSync(dir)
    .map((f) => /^v(\d+)\.metadata\.json$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]));
  if (versions.length === 0) throw new Error(`no v<N>.metadata.json in ${dir}`);
  return path.join(dir, `v${Math.max(...versions)}.metadata.json`);
}

export function readCurrentSnapshot(tablePath: string): CurrentSnapshot {
  const metadataFile = currentMetadataFile(tablePath);
  const meta = JSON.parse(fs.readFileSync(metadataFile, 'utf8').replace(ID_KEYS, '"$1":"$2"')) as {
    'format-version'?: number;
    'current-snapshot-id'?: string | null;
    snapshots?: { 'snapshot-id': string; 'manifest-list'?: string }[];
  } & SchemaFields;
  const id = meta['current-snapshot-id'] ?? null;
  const formatVersion = meta['format-version'] ?? 1;
  const fieldIds = currentFieldIds(meta);
  if (id === null || id === '-1')
    return { metadataFile, formatVersion, snapshotId: null, manifestList: null, fieldIds };
  const snapshot = (meta.snapshots ?? []).find((s) => s['snapshot-id'] === id);
  if (snapshot === undefined)
    throw new Error(`${metadataFile}: current snapshot ${id} is not among its snapshots`);
  if (snapshot['manifest-list'] === undefined)
    throw new Error(
      `${metadataFile}: snapshot ${id} has no manifest-list (v1 inline manifests are not supported)`,
    );
  return {
    metadataFile,
    formatVersion,
    snapshotId: id,
    manifestList: resolveFile(snapshot['manifest-list'], tablePath),
    fieldIds,
  };
}

interface SchemaJson {
  'schema-id'?: number;
  fields?: { id: number; name: string }[];
}

interface SchemaFields {
  /** v1 */
  schema?: SchemaJson;
  /** v2 (and v1 tables written by newer libraries) */
  schemas?: SchemaJson[];
  'current-schema-id'?: number;
}

/** The current schema's top-level field ids by name; empty when the metadata has no schema (no pruning then). */
function currentFieldIds(meta: SchemaFields): Map<string, number> {
  const current =
    meta.schemas?.find((s) => s['schema-id'] === meta['current-schema-id']) ?? meta.schema;
  return new Map((current?.fields ?? []).map((f) => [f.name, f.id]));
}

/**
 * Metadata holds absolute URIs as the writer saw them (e.g. file:/abs/warehouse/db/table/data/x.parquet).
 * Strip the scheme; if the file is not there (the warehouse was moved), re-root it under tablePath.
 */
export function resolveFile(uri: string, tablePath: string): string {
  const m = /^file:(?:\/\/)?(\/.*)$/.exec(uri);
  if (m === null && /^[a-z][a-z0-9+.-]*:\/\//i.test(uri))
    throw new Error(`unsupported file URI ${uri} (only local files)`);
  const local = m !== null ? (m[1] as string) : uri;
  if (fs.existsSync(local)) return local;
  const at = local.search(/\/(metadata|data)\//);
  return at >= 0 ? path.join(tablePath, local.slice(at + 1)) : local;
}

interface ManifestListEntry {
  manifest_path: string;
  /** v2: 0 data, 1 deletes; absent in v1. */
  content?: number;
}

interface ManifestEntry {
  /** 0 existing, 1 added, 2 deleted. */
  status: number;
  data_file: {
    content?: number;
    file_path: string;
    file_format: string;
    record_count: number | bigint;
    /** Iceberg's map<int, binary>, written as an array of key/value records. */
    lower_bounds?: { key: number; value: Buffer }[] | null;
    upper_bounds?: { key: number; value: Buffer }[] | null;
  };
}

const boundsOf = (b: { key: number; value: Buffer }[] | null | undefined): Map<number, Buffer> =>
  new Map((b ?? []).map((kv) => [kv.key, kv.value]));

/** The live files of the snapshot: every manifest of its list, entries not marked deleted, with their column bounds. */
export async function liveFiles(snapshot: CurrentSnapshot, tablePath: string): Promise<LiveFiles> {
  const out: LiveFiles = { data: [], deletes: [] };
  if (snapshot.manifestList === null) return out;
  const manifests = await readAvroFile<ManifestListEntry>(snapshot.manifestList);
  for (const m of manifests) {
    const entries = await readAvroFile<ManifestEntry>(resolveFile(m.manifest_path, tablePath));
    for (const e of entries) {
      if (e.status === 2) continue;
      const file = resolveFile(e.data_file.file_path, tablePath);
      if ((m.content ?? 0) !== 0 || (e.data_file.content ?? 0) !== 0) {
        out.deletes.push(file);
        continue;
      }
      if (e.data_file.file_format.toUpperCase() !== 'PARQUET') {
        throw new Error(`data file ${file} is ${e.data_file.file_format}; only Parquet is read`);
      }
      out.data.push({
        path: file,
        recordCount: Number(e.data_file.record_count),
        lowerBounds: boundsOf(e.data_file.lower_bounds),
        upperBounds: boundsOf(e.data_file.upper_bounds),
      });
    }
  }
  return out;
}

/**
 * False only when the file's bounds for a string column prove that no row holds `value`: outside
 * [lower, upper] in UTF-8 byte order, which is Unicode code point order, Iceberg's order for strings.
 * Truncated bounds (Iceberg's default `truncate(16)` metrics) are still bounds: a truncated lower
 * bound is a prefix, and a truncated upper bound is incremented. A column without bounds may hold
 * anything.
 */
export function mayHoldString(file: DataFile, fieldId: number | undefined, value: string): boolean {
  if (fieldId === undefined) return true;
  const v = Buffer.from(value, 'utf8');
  const lower = file.lowerBounds.get(fieldId);
  if (lower !== undefined && Buffer.compare(v, lower) < 0) return false;
  const upper = file.upperBounds.get(fieldId);
  if (upper !== undefined && Buffer.compare(v, upper) > 0) return false;
  return true;
}
