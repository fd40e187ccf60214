package shop.clickstream.flink.clean;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.CloseableIterable;

/** The events table of a Hadoop catalog in a test's temporary directory, with appends of named (never written) data files. */
final class IcebergTestTables {
  static final TableIdentifier ID = IcebergEvents.identifier("clickstream", "events_clean");

  private IcebergTestTables() {}

  /** The job's own start-up call on the table: created or updated with these settings. */
  static Table ensure(Path dir, long maxAgeMs, int retained, int metadataVersionsKept) {
    CatalogLoader loader = IcebergEvents.catalogLoader(dir.toString());
    return IcebergEvents.ensureTable(loader, ID, "snappy", maxAgeMs, retained, metadataVersionsKept);
  }

  /** Commits one append of one data file, f-i.parquet, in the table's partition "r" when it is partitioned. */
  static void append(Table table, Path dir, int i) {
    DataFile f = DataFiles.builder(table.spec())
        .withPartitionPath(table.spec().isUnpartitioned() ? "" : "run_id=r")
        .withPath(dir.resolve("data/f-" + i + ".parquet").toString())
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .build();
    table.newAppend().appendFile(f).commit();
  }

  /** The data files of the table's current snapshot, after a refresh. */
  static List<String> liveFiles(Table table) throws IOException {
    List<String> paths = new ArrayList<>();
    table.refresh();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) paths.add(t.file().location());
    }
    return paths;
  }
}
