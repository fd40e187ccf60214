/** Writes a tiny Iceberg table (Hadoop catalog layout, Avro manifests, Parquet data) for tests, as Iceberg's own writer lays it out. */

import * as fs from 'fs';
import * as path from 'path';
import * as avro from 'avsc';
import { avroType } from '../src/iceberg/avro';

// The fields of Iceberg's manifest-list and manifest schemas that readers use (field names as in the spec).
const MANIFEST_FILE_SCHEMA: avro.Schema = {
  type: 'record',
  name: 'manifest_file',
  fields: [
    { name: 'manifest_path', type: 'string' },
    { name: 'manifest_length', type: 'long' },
    { name: 'partition_spec_id', type: 'int' },
    { name: 'content', type: 'int' },
    { name: 'sequence_number', type: 'long' },
    { name: 'added_snapshot_id', type: 'long' },
  ],
};

// Iceberg writes map<int, binary> as an array of key/value records, a record name per map.
const bound = (name: string): avro.Schema => ({
  type: 'record',
  name,
  fields: [
    { name: 'key', type: 'int' },
    { name: 'value', type: 'bytes' },
  ],
});

/** Field ids of the fixture's schema, as in the clean job's table. */
const FIELD_IDS = { event_id: 1, seq: 2, run_id: 3 } as const;

const MANIFEST_ENTRY_SCHEMA: avro.Schema = {
  type: 'record',
  name: 'manifest_entry',
  fields: [
    { name: 'status', type: 'int' },
    { name: 'snapshot_id', type: ['null', 'long'], default: null },
    {
      name: 'data_file',
      type: {
        type: 'record',
        name: 'r2',
        fields: [
          { name: 'content', type: 'int' },
          { name: 'file_path', type: 'string' },
          { name: 'file_format', type: 'string' },
          { name: 'partition', type: { type: 'record', name: 'r102', fields: [] } },
          { name: 'record_count', type: 'long' },
          { name: 'file_size_in_bytes', type: 'long' },
          {
            name: 'lower_bounds',
            type: ['null', { type: 'array', items: bound('k126_v127') }],
            default: null,
          },
          {
            name: 'upper_bounds',
            type: ['null', { type: 'array', items: bound('k129_v130') }],
            default: null,
          },
        ],
      },
    },
  ],
};

export interface FixtureRow {
  seq: number;
  run_id: string;
  event_id: string;
}

export interface FixtureFile {
  rows: FixtureRow[];
  /** Manifest entry status: 0 existing, 1 added (default), 2 deleted. */
  status?: number;
  /** 0 data (default), 1 position deletes. */
  content?: number;
  /**
   * The run_id bounds written to the manifest: by default the rows' own, truncated to 16 characters
   * as Iceberg's default metrics do; null writes none; a pair writes exactly those.
   */
  runIdBounds?: [string, string] | null;
}

/** Iceberg's truncate(16) string bounds: the lower a prefix, the upper a prefix with its last character incremented. */
export function truncatedBounds(values: string[], width = 16): [string, string] {
  const sorted = [...values].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const lo = sorted[0] as string;
  const hi = sorted[sorted.length - 1] as string;
  const upper =
    hi.length <= width
      ? hi
      : hi.slice(0, width - 1) + String.fromCodePoint((hi.codePointAt(width - 1) as number) + 1);
  return [lo.slice(0, width), upper];
}

/** 63-bit, beyond 2^53 on purpose: the reader must not lose digits. */
export const FIXTURE_SNAPSHOT_ID = 7_523_094_612_345_678_901n;

function writeAvro(file: string, schema: avro.Schema, records: object[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const encoder = avro.createFileEncoder(file, avroType(schema), {
      codec: 'deflate',
    } as unknown as avro.EncoderOptions);
    encoder.on('error', reject);
    // The file stream is piped from the encoder; wait for the file itself to be closed.
    (encoder as unknown as { on(e: 'finish', f: () => void): void }).on('finish', () =>
      setTimeout(resolve, 20),
    );
    for (const r of records) encoder.write(r);
    encoder.end();
  });
}

async function writeParquet(file: string, rows: FixtureRow[]): Promise<void> {
  const { parquetWriteBuffer } = await import('hyparquet-writer');
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'event_id', data: rows.map((r) => r.event_id), type: 'STRING' },
      { name: 'seq', data: BigInt64Array.from(rows.map((r) => BigInt(r.seq))), type: 'INT64' },
      { name: 'run_id', data: rows.map((r) => r.run_id), type: 'STRING' },
    ],
    rowGroupSize: 2,
  });
  fs.writeFileSync(file, Buffer.from(buffer));
}

/** Writes v1 (no snapshot) and, unless `files` is null, v2 with one snapshot holding `files`. */
export async function writeIcebergFixture(
  tablePath: string,
  files: FixtureFile[] | null,
  opts: { hint?: boolean } = {},
): Promise<void> {
  const meta = path.join(tablePath, 'metadata');
  const data = path.join(tablePath, 'data');
  fs.mkdirSync(meta, { recursive: true });
  fs.mkdirSync(data, { recursive: true });
  const base = {
    'format-version': 2,
    'table-uuid': '00000000-0000-0000-0000-000000000001',
    location: `file:${tablePath}`,
    'current-schema-id': 0,
    schemas: [
      {
        type: 'struct',
        'schema-id': 0,
        fields: Object.entries(FIELD_IDS).map(([name, id]) => ({
          id,
          name,
          required: true,
          type: name === 'seq' ? 'long' : 'string',
        })),
      },
    ],
  };
  fs.writeFileSync(
    path.join(meta, 'v1.metadata.json'),
    JSON.stringify({ ...base, 'current-snapshot-id': -1, snapshots: [] }),
  );
  let version = 1;
  if (files !== null) {
    const entries = [];
    for (const [i, f] of files.entries()) {
      const file = path.join(data, `0000${i}-0-fixture.parquet`);
      await writeParquet(file, f.rows);
      const bounds =
        f.runIdBounds === undefined
          ? f.rows.length > 0
            ? truncatedBounds(f.rows.map((r) => r.run_id))
            : null
          : f.runIdBounds;
      const bound = (v: string | undefined) =>
        v === undefined ? null : [{ key: FIELD_IDS.run_id, value: Buffer.from(v, 'utf8') }];
      entries.push({
        status: f.status ?? 1,
        snapshot_id: FIXTURE_SNAPSHOT_ID,
        data_file: {
          content: f.content ?? 0,
          file_path: `file:${file}`,
          file_format: 'PARQUET',
          partition: {},
          record_count: f.rows.length,
          file_size_in_bytes: fs.statSync(file).size,
          lower_bounds: bound(bounds?.[0]),
          upper_bounds: bound(bounds?.[1]),
        },
      });
    }
    const manifest = path.join(meta, 'fixture-m0.avro');
    await writeAvro(manifest, MANIFEST_ENTRY_SCHEMA, entries);
    const list = path.join(meta, `snap-${FIXTURE_SNAPSHOT_ID}-1-fixture.avro`);
    await writeAvro(list, MANIFEST_FILE_SCHEMA, [
      {
        manifest_path: `file:${manifest}`,
        manifest_length: fs.statSync(manifest).size,
        partition_spec_id: 0,
        content: 0,
        sequence_number: 1,
        added_snapshot_id: FIXTURE_SNAPSHOT_ID,
      },
    ]);
    // The id is written as a bare 63-bit JSON number, as Iceberg does.
    const snapshots = `[{"snapshot-id":${FIXTURE_SNAPSHOT_ID},"manifest-list":${JSON.stringify(`file:${list}`)}}]`;
    const json = JSON.stringify({ ...base, 'current-snapshot-id': 0, snapshots: 0 })
      .replace('"current-snapshot-id":0', `"current-snapshot-id":${FIXTURE_SNAPSHOT_ID}`)
      .replace('"snapshots":0', `"snapshots":${snapshots}`);
    fs.writeFileSync(path.join(meta, 'v2.metadata.json'), json);
    version = 2;
  }
  if (opts.hint ?? true) fs.writeFileSync(path.join(meta, 'version-hint.text'), `${version}\n`);
}
