package shop.clickstream.flink.clean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static shop.clickstream.flink.clean.IcebergTestTables.ID;
import static shop.clickstream.flink.clean.IcebergTestTables.append;
import static shop.clickstream.flink.clean.IcebergTestTables.liveFiles;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.flink.CatalogLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** IcebergEvents.ensureTable, the clean job's start-up call on its table: spec, retention, statistics, metadata kept. */
class IcebergEventsTest {
  @TempDir Path dir;

  private Table table(long maxAgeMs, int retained) {
    return table(maxAgeMs, retained, 20);
  }

  private Table table(long maxAgeMs, int retained, int metadataVersionsKept) {
    return IcebergTestTables.ensure(dir, maxAgeMs, retained, metadataVersionsKept);
  }

  @Test
  void partitionsByRunIdNewTablesAndTablesCreatedUnpartitioned() throws IOException {
    assertEquals(IcebergEvents.SPEC.fields().toString(), table(3_600_000, 10).spec().fields().toString());
    assertEquals("run_id", table(3_600_000, 10).spec().fields().get(0).name());

    // A table from before the spec: evolved once, its existing files left in the unpartitioned spec.
    Catalog catalog = IcebergEvents.catalogLoader(dir.toString()).loadCatalog();
    TableIdentifier old = IcebergEvents.identifier("clickstream", "old_events");
    Table created = catalog.createTable(old, IcebergEvents.SCHEMA, PartitionSpec.unpartitioned());
    append(created, dir, 0);
    CatalogLoader loader = IcebergEvents.catalogLoader(dir.toString());
    Table evolved = IcebergEvents.ensureTable(loader, old, "snappy", 3_600_000, 10, 20);
    assertEquals(2, evolved.specs().size());
    assertEquals("[1000: run_id: identity(3)]", evolved.spec().fields().toString());
    append(evolved, dir, 1);
    // The next start finds the spec in place and changes nothing.
    int specId = evolved.spec().specId();
    assertEquals(specId, IcebergEvents.ensureTable(loader, old, "snappy", 3_600_000, 10, 20).spec().specId());
    assertEquals(2, liveFiles(evolved).size());
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
    for (int i = 0; i < 6; i++) append(writer, dir, i);
    ValidationException e = assertThrows(ValidationException.class, held::refresh);
    assertTrue(e.getMessage().contains("Metadata file for version"), e.getMessage());

    // Kept for more commits than came: the same refresh sees every commit. An existing table gets the job's value.
    Table kept = table(3_600_000, 10, 20);
    assertEquals("20", kept.properties().get(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX));
    Table heldAgain = IcebergEvents.catalogLoader(dir.toString()).loadCatalog().loadTable(ID);
    for (int i = 6; i < 12; i++) append(kept, dir, i);
    heldAgain.refresh();
    assertEquals(kept.currentSnapshot().snapshotId(), heldAgain.currentSnapshot().snapshotId());
  }
}
