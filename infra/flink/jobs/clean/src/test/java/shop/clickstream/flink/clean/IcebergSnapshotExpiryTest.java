package shop.clickstream.flink.clean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshot expiry on a real Hadoop-catalog table in a temporary directory (data files are named, never read). */
class IcebergSnapshotExpiryTest {
  private static final TableIdentifier ID = IcebergEvents.identifier("clickstream", "events_clean");

  @TempDir Path dir;

  private Table table(long maxAgeMs, int retained) {
    return table(maxAgeMs, retained, 20);
  }

  private Table table(long maxAgeMs, int retained, int metadataVersionsKept) {
    CatalogLoader loader = IcebergEvents.catalogLoader(dir.toString());
    return IcebergEvents.ensureTable(loader, ID, "snappy", maxAgeMs, retained, metadataVersionsKept);
  }

  private void append(Table table, int i) {
    DataFile f = DataFiles.builder(table.spec())
        .withPartitionPath(table.spec().isUnpartitioned() ? "" : "run_id=r")
        .withPath(dir.resolve("data/f-" + i + ".parquet").toString())
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .build();
    table.newAppend().appendFile(f).commit();
  }

  private static List<String> liveFiles(Table table) throws IOException {
    List<String> paths = new ArrayList<>();
    table.refresh();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) paths.add(t.file().location());
    }
    return paths;
  }

  private long manifestLists() throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("clickstream/events_clean/metadata"))) {
      return files.filter(p -> p.getFileName().toString().startsWith("snap-")).count();
    }
  }

  @Test
  void keepsTheNewestSnapshotsAndEveryDataFile() throws IOException {
    Table table = table(3_600_000, 3);
    for (int i = 0; i < 12; i++) append(table, i);
    assertEquals(12, manifestLists());

    IcebergSnapshotExpiry.Result r = IcebergSnapshotExpiry.expire(table, System.currentTimeMillis() + 1, 0, 3);

    assertEquals(new IcebergSnapshotExpiry.Result(12, 3), r);
    assertEquals(3, manifestLists());
    assertEquals(12, liveFiles(table).size());
    // The newest snapshot is current and still has its parent chain to the other two kept.
    assertEquals(table.currentSnapshot().parentId(), table.snapshot(table.currentSnapshot().parentId()).snapshotId());
  }

  @Test
  void keepsSnapshotsYoungerThanTheMaximumAge() {
    Table table = table(3_600_000, 1);
    for (int i = 0; i < 5; i++) append(table, i);
    assertEquals(new IcebergSnapshotExpiry.Result(5, 5),
        IcebergSnapshotExpiry.expire(table, System.currentTimeMillis(), 3_600_000, 1));
  }

  @Test
  void anEmptyTableIsLeftAsItIs() {
    Table table = table(3_600_000, 1);
    assertEquals(new IcebergSnapshotExpiry.Result(0, 0),
        IcebergSnapshotExpiry.expire(table, System.currentTimeMillis(), 0, 1));
  }

  @Test
  void losesNoAppendThatRacesAnExpiry() throws Exception {
    // The clean job's committer appends while the expiry thread commits: both retry a conflict, no append is lost.
    Table writer = table(3_600_000, 2);
    Table expirer = IcebergEvents.catalogLoader(dir.toString()).loadCatalog().loadTable(ID);
    int appends = 60;
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        for (int i = 0; i < appends; i++) append(writer, i);
      } catch (Throwable e) {
        failed.set(e);
      }
    });
    t.start();
    int expiries = 0;
    while (t.isAlive()) {
      IcebergSnapshotExpiry.expire(expirer, System.currentTimeMillis() + 1, 0, 2);
      expiries++;
    }
    t.join();
    assertEquals(null, failed.get());
    assertTrue(expiries > 1, "expiries ran " + expiries + " time(s) during the appends");
    assertEquals(appends, liveFiles(expirer).size());
  }

  @Test
  void partitionsByRunIdNewTablesAndTablesCreatedUnpartitioned() {
    assertEquals(IcebergEvents.SPEC.fields().toString(), table(3_600_000, 10).spec().fields().toString());
    assertEquals("run_id", table(3_600_000, 10).spec().fields().get(0).name());

    // A table from before the spec: evolved once, its existing files left in the unpartitioned spec.
    Catalog catalog = IcebergEvents.catalogLoader(dir.toString()).loadCatalog();
    TableIdentifier old = IcebergEvents.identifier("clickstream", "old_events");
    Table created = catalog.createTable(old, IcebergEvents.SCHEMA, PartitionSpec.unpartitioned());
    append(created, 0);
    CatalogLoader loader = IcebergEvents.catalogLoader(dir.toString());
    Table evolved = IcebergEvents.ensureTable(loader, old, "snappy", 3_600_000, 10, 20);
    assertEquals(2, evolved.specs().size());
    assertEquals("[1000: run_id: identity(3)]", evolved.spec().fields().toString());
    append(evolved, 1);
    // The next start finds the spec in place and changes nothing.
    int specId = evolved.spec().specId();
    assertEquals(specId, IcebergEvents.ensureTable(loader, old, "snappy", 3_600_000, 10, 20).spec().specId());
    assertEquals(2, liveFilesOf(evolved).size());
  }

  private static List<String> liveFilesOf(Table table) {
    try {
      return liveFiles(table);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void setsTheRetentionOnAnExistingTable() {
    table(3_600_000, 10);
    Table again = table(900_000, 5);
    assertEquals("900000", again.properties().get(TableProperties.MAX_SNAPSHOT_AGE_MS));
    assertEquals("5", again.properties().get(TableProperties.MIN_SNAPSHOTS_TO_KEEP));
    assertTrue(new File(dir.toFile(), "clickstream/events_clean/metadata").isDirectory());
  }

  @Test
  void keepsFullRunIdStatisticsOnNewAndExistingTables() {
    Table created = table(3_600_000, 10);
    assertEquals("full", MetricsConfig.forTable(created).columnMode("run_id").toString());
    // Another column keeps Iceberg's default, truncate(16).
    assertEquals("truncate(16)", MetricsConfig.forTable(created).columnMode("event_id").toString());
    // A table created before the property existed gets it at the job's next start.
    created.updateProperties().remove(IcebergEvents.RUN_ID_METRICS).commit();
    assertEquals("truncate(16)", MetricsConfig.forTable(created).columnMode("run_id").toString());
    assertEquals("full", MetricsConfig.forTable(table(3_600_000, 10)).columnMode("run_id").toString());
  }

  @Test
  void anOpenTableRefreshesOnlyWhileItsMetadataVersionIsKept() {
    // Why CleanJobConfig.metadataVersionsKept exists: a table held open (as the expiry and the compaction hold theirs)
    // refreshes from its cached metadata version, and fails once more commits than the table keeps have come since.
    Table writer = table(3_600_000, 10, 5);
    Table held = IcebergEvents.catalogLoader(dir.toString()).loadCatalog().loadTable(ID);
    for (int i = 0; i < 6; i++) append(writer, i);
    ValidationException e = assertThrows(ValidationException.class, held::refresh);
    assertTrue(e.getMessage().contains("Metadata file for version"), e.getMessage());

    // Kept for more commits than came: the same refresh sees every commit. An existing table gets the job's value.
    Table kept = table(3_600_000, 10, 20);
    assertEquals("20", kept.properties().get(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX));
    Table heldAgain = IcebergEvents.catalogLoader(dir.toString()).loadCatalog().loadTable(ID);
    for (int i = 6; i < 12; i++) append(kept, i);
    heldAgain.refresh();
    assertEquals(kept.currentSnapshot().snapshotId(), heldAgain.currentSnapshot().snapshotId());
  }

  @Test
  void startsOnlyWhenTheIntervalHasPassedAndNoneIsRunning() {
    assertFalse(IcebergSnapshotExpiry.due(59_999, 0, 60_000, true));
    assertTrue(IcebergSnapshotExpiry.due(60_000, 0, 60_000, true));
    assertFalse(IcebergSnapshotExpiry.due(120_000, 0, 60_000, false));
  }
}
