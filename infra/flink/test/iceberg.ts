/** Reads an Iceberg table of the Hadoop-catalog warehouse down to its manifests (no Parquet): current snapshot, summary and live data files. */

import * as fs from 'fs';
import * as path from 'path';
import { Type, createFileDecoder, types } from 'avsc';

export interface IcebergSnapshotView {
  /** Kept as a string: snapshot ids are 64-bit and would lose precision as JSON numbers. */
  snapshotId: string;
  snapshotCount: number;
  formatVersion: number;
  /** `total-records` of the current snapshot's summary. */
  summaryTotalRecords: number;
  /** Sum of record_count over the live data-file entries of the current snapshot's manifests. */
  manifestRecords: number;
  dataFiles: number;
  /** Local paths of the live data files. */
  dataFilePaths: string[];
  /** Manifests that track delete files (content 1); an append-only table has none. */
  deleteManifests: number;
  parquetCodec: string | undefined;
}

interface TableMetadata {
  'format-version': number;
  'current-snapshot-id': string | null;
  properties?: Record<string, string>;
  snapshots?: {
    'snapshot-id': string;
    'timestamp-ms': number;
    'manifest-list': string;
    summary: Record<string, string>;
  }[];
}

/** Local path of a location written by Hadoop's local file system (file:/... or file:///...). */
function localPath(location: string): string {
  return location.replace(/^file:(\/\/)?/, '');
}

/**
 * Avro longs as bigint: manifests carry 64-bit snapshot ids, which avsc's default long type refuses to decode
 * ("potential precision loss").
 */
const BIG_LONG = types.LongType.__with({
  fromBuffer: (b: Buffer) => b.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(n);
    return b;
  },
  fromJSON: (n: number | string) => BigInt(n),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint',
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

function readAvro(file: string): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const rows: Record<string, unknown>[] = [];
    createFileDecoder(file, {
      parseHook: (schema) => Type.forSchema(schema, { registry: { long: BIG_LONG } }),
    })
      .on('data', (r: Record<string, unknown>) => rows.push(r))
      .on('end', () => resolve(rows))
      .on('error', reject);
  });
}

function readMetadata(tableDir: string): { meta: TableMetadata; metaDir: string; version: string } {
  const metaDir = path.join(tableDir, 'metadata');
  const version = fs.readFileSync(path.join(metaDir, 'version-hint.text'), 'utf8').trim();
  const text = fs.readFileSync(path.join(metaDir, `v${version}.metadata.json`), 'utf8');
  const meta = JSON.parse(
    text.replace(/("(?:current-)?snapshot-id"\s*:\s*)(-?\d+)/g, '$1"$2"'),
  ) as TableMetadata;
  return { meta, metaDir, version };
}

/** One committed snapshot as the table's metadata lists it (oldest first). */
export interface SnapshotEntry {
  timestampMs: number;
  addedRecords: number;
  /** The Flink job that committed it (`flink.job-id` in the summary). */
  flinkJobId: string | undefined;
  checkpointId: number;
  /** `append` from the sink, `replace` from a compaction. */
  operation: string | undefined;
  addedDataFiles: number;
  deletedDataFiles: number;
  /** Bytes of all the table's live data files after this snapshot (`total-files-size`). */
  totalFilesSize: number;
}

/** Every snapshot the current metadata still lists, oldest first. */
export function listSnapshots(tableDir: string): SnapshotEntry[] {
  return (readMetadata(tableDir).meta.snapshots ?? []).map((s) => ({
    timestampMs: s['timestamp-ms'],
    addedRecords: Number(s.summary['added-records'] ?? 0),
    flinkJobId: s.summary['flink.job-id'],
    checkpointId: Number(s.summary['flink.max-committed-checkpoint-id'] ?? -1),
    operation: s.summary.operation,
    addedDataFiles: Number(s.summary['added-data-files'] ?? 0),
    deletedDataFiles: Number(s.summary['deleted-data-files'] ?? 0),
    totalFilesSize: Number(s.summary['total-files-size'] ?? 0),
  }));
}

/** Returns null while the table has no snapshot yet. */
export async function readCurrentSnapshot(tableDir: string): Promise<IcebergSnapshotView | null> {
  const { meta, metaDir, version } = readMetadata(tableDir);
  const currentId = meta['current-snapshot-id'];
  if (currentId === null || currentId === '-1') return null;
  const snapshot = meta.snapshots?.find((s) => s['snapshot-id'] === currentId);
  if (!snapshot)
    throw new Error(`current snapshot ${currentId} not in ${metaDir}/v${version}.metadata.json`);

  let manifestRecords = 0;
  let dataFiles = 0;
  const dataFilePaths: string[] = [];
  let deleteManifests = 0;
  for (const m of await readAvro(localPath(snapshot['manifest-list']))) {
    if (m.content !== 0) {
      deleteManifests++;
      continue;
    }
    for (const entry of await readAvro(localPath(String(m.manifest_path)))) {
      const file = entry.data_file as { content: number; record_count: number; file_path: string };
      // status 2 = DELETED: the entry records a removal and is not part of the snapshot.
      if (entry.status === 2 || file.content !== 0) continue;
      dataFiles++;
      dataFilePaths.push(localPath(file.file_path));
      manifestRecords += Number(file.record_count);
    }
  }
  return {
    snapshotId: currentId,
    snapshotCount: meta.snapshots?.length ?? 0,
    formatVersion: meta['format-version'],
    summaryTotalRecords: Number(snapshot.summary['total-records']),
    manifestRecords,
    dataFiles,
    dataFilePaths,
    deleteManifests,
    parquetCodec: meta.properties?.['write.parquet.compression-codec'],
  };
}
