/** Reads chosen columns of a Parquet data file into plain arrays (hyparquet: pure JS, no JVM, no native code). */

import { promises as fs } from 'fs';
import { parquetMetadata, parquetRead } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

export type Column = ArrayLike<unknown>;

/**
 * Columns by name, each with one value per row of the file. Reads the whole file into memory
 * (Iceberg data files are tens of MB at most); INT64 columns come back as bigint.
 */
export async function readParquetColumns(
  file: string,
  columns: string[],
): Promise<{ rows: number; columns: Map<string, unknown[]> }> {
  const bytes = await fs.readFile(file);
  const buffer = bytes.buffer.slice(
    bytes.byteOffset,
    bytes.byteOffset + bytes.byteLength,
  ) as ArrayBuffer;
  const metadata = parquetMetadata(buffer);
  const rows = Number(metadata.num_rows);
  const present = new Set(metadata.schema.map((s) => s.name));
  const missing = columns.filter((c) => !present.has(c));
  if (missing.length > 0) throw new Error(`${file} has no column(s) ${missing.join(', ')}`);
  const out = new Map<string, unknown[]>(columns.map((c) => [c, new Array<unknown>(rows)]));
  await parquetRead({
    file: buffer,
    metadata,
    columns,
    compressors,
    // Column chunks arrive per row group; copying by rowStart keeps rows aligned across columns.
    onChunk: ({ columnName, columnData, rowStart }) => {
      const target = out.get(columnName);
      if (target === undefined) return;
      for (let i = 0; i < columnData.length; i++) target[rowStart + i] = columnData[i];
    },
  });
  return { rows, columns: out };
}
