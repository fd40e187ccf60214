/** Iceberg layer adapter: this run's rows of the table's current snapshot, read natively from metadata, Avro manifests and Parquet. */

import { SeqList, toIndexSeq, type LayerRead } from '../core/contents';
import { liveFiles, mayHoldString, readCurrentSnapshot } from '../iceberg/metadata';
import { readParquetColumns } from '../iceberg/parquet';

export interface IcebergLayerOptions {
  /** <warehouse>/<db>/<table>, the directory that holds metadata/ and data/. */
  tablePath: string;
  runId: string;
  columns?: { seq: string; runId: string; eventId: string };
}

const DEFAULT_COLUMNS = { seq: 'seq', runId: 'run_id', eventId: 'event_id' };

export async function readIcebergLayer(o: IcebergLayerOptions): Promise<LayerRead> {
  const started = Date.now();
  const cols = o.columns ?? DEFAULT_COLUMNS;
  try {
    const snapshot = readCurrentSnapshot(o.tablePath);
    const files = await liveFiles(snapshot, o.tablePath);
    if (files.deletes.length > 0) {
      throw new Error(
        `snapshot ${snapshot.snapshotId} has ${files.deletes.length} delete file(s), which this reader does not apply`,
      );
    }
    const seqs = new SeqList();
    const eventIds: (string | null)[] = [];
    let foreign = 0;
    let rowsRead = 0;
    // Files whose run_id bounds exclude this run hold none of its rows: skipped, as any Iceberg
    // reader skips them for a filter on run_id (the table keeps every run, so most files are others').
    const runIdField = snapshot.fieldIds.get(cols.runId);
    let skipped = 0;
    let skippedRows = 0;
    for (const f of files.data) {
      if (!mayHoldString(f, runIdField, o.runId)) {
        skipped++;
        skippedRows += f.recordCount;
        foreign += f.recordCount;
        continue;
      }
      const { rows, columns } = await readParquetColumns(f.path, [
        cols.seq,
        cols.runId,
        cols.eventId,
      ]);
      if (rows !== f.recordCount)
        throw new Error(`${f.path}: ${rows} row(s) but the manifest says ${f.recordCount}`);
      rowsRead += rows;
      const seq = columns.get(cols.seq) as unknown[];
      const run = columns.get(cols.runId) as unknown[];
      const id = columns.get(cols.eventId) as unknown[];
      for (let i = 0; i < rows; i++) {
        if (run[i] !== o.runId) {
          foreign++;
          continue;
        }
        seqs.push(toIndexSeq(seq[i] as number | bigint | null));
        const e = id[i];
        eventIds.push(typeof e === 'string' ? e : null);
      }
    }
    const notes = [
      snapshot.snapshotId === null
        ? `table ${o.tablePath} has no snapshot yet (${snapshot.metadataFile})`
        : `snapshot ${snapshot.snapshotId} (${snapshot.metadataFile}): ${files.data.length} data file(s); ${files.data.length - skipped} read (${rowsRead} row(s)), ${skipped} skipped by their run_id bounds (${skippedRows} row(s) of other runs)`,
    ];
    return {
      ok: true,
      contents: { seqs: seqs.toArray(), eventIds, foreign, notes, readMs: Date.now() - started },
    };
  } catch (err) {
    return {
      ok: false,
      error: `iceberg ${o.tablePath}: ${err instanceof Error ? err.message : String(err)}`,
      readMs: Date.now() - started,
    };
  }
}
