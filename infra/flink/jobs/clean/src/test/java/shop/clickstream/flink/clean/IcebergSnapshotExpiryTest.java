package shop.clickstream.flink.clean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static shop.clickstream.flink.clean.IcebergTestTables.ID;
import static shop.clickstream.flink.clean.IcebergTestTables.append;
import static shop.clickstream.flink.clean.IcebergTestTables.liveFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshot expiry on a real Hadoop-catalog table in a temporary directory (data files are named, never read). */
class IcebergSnapshotExpiryTest {
  @TempDir Path dir;

  private Table table(long maxAgeMs, int retained) {
    return IcebergTestTables.ensure(dir, maxAgeMs, retained, 20);
  }

  private long manifestLists() throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("clickstream/events_clean/metadata"))) {
      return files.filter(p -> p.getFileName().toString().startsWith("snap-")).count();
    }
  }

  @Test
  void keepsTheNewestSnapshotsAndEveryDataFile() throws IOException {
    Table table = table(3_600_000, 3);
    for (int i = 0; i < 12; i++) append(table, dir, i);
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
    for (int i = 0; i < 5; i++) append(table, dir, i);
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
        for (int i = 0; i < appends; i++) append(writer, dir, i);
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
  void startsOnlyWhenTheIntervalHasPassedAndNoneIsRunning() {
    assertFalse(IcebergSnapshotExpiry.due(59_999, 0, 60_000, true));
    assertTrue(IcebergSnapshotExpiry.due(60_000, 0, 60_000, true));
    assertFalse(IcebergSnapshotExpiry.due(120_000, 0, 60_000, false));
  }
}
