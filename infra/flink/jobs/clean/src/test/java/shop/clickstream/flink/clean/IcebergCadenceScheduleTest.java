package shop.clickstream.flink.clean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When {@link IcebergCadence} lets its held rows through to the Iceberg sink. */
class IcebergCadenceScheduleTest {
  @Test
  void releasesAtTheFirstCheckpointInEachInterval() {
    IcebergCadence.Schedule s = new IcebergCadence.Schedule(5_000);
    // Checkpoints every 1,200 ms from t = 10,000; intervals start at 10,000, 15,000, 20,000, ...
    List<Long> released = new ArrayList<>();
    for (long t = 10_000; t <= 30_000; t += 1_200) {
      if (s.releaseAt(t)) released.add(t);
    }
    assertEquals(List.of(10_000L, 16_000L, 20_800L, 25_600L), released);
  }

  @Test
  void subtasksThatSeeTheSameBarriersMillisecondsApartReleaseAtTheSameCheckpoints() {
    IcebergCadence.Schedule a = new IcebergCadence.Schedule(5_000);
    IcebergCadence.Schedule b = new IcebergCadence.Schedule(5_000);
    // b starts later and sees each barrier 4 ms after a (none of these barriers falls within 4 ms before an interval
    // boundary, the one case where the two would release one checkpoint apart).
    a.releaseAt(9_300);
    int differ = 0;
    for (long t = 10_003; t <= 100_000; t += 1_013) {
      if (a.releaseAt(t) != b.releaseAt(t + 4)) differ++;
    }
    assertEquals(0, differ);
  }

  @Test
  void zeroReleasesAtEveryCheckpoint() {
    IcebergCadence.Schedule s = new IcebergCadence.Schedule(0);
    assertTrue(s.releaseAt(1));
    assertTrue(s.releaseAt(1));
    assertTrue(s.releaseAt(2));
  }

  @Test
  void releasesOncePerInterval() {
    IcebergCadence.Schedule s = new IcebergCadence.Schedule(5_000);
    assertTrue(s.releaseAt(1));
    assertFalse(s.releaseAt(4_999));
    assertTrue(s.releaseAt(5_000));
    assertFalse(s.releaseAt(9_999));
    assertTrue(s.releaseAt(17_000));
  }

  @Test
  void refusesANegativeInterval() {
    assertThrows(IllegalArgumentException.class, () -> new IcebergCadence.Schedule(-1));
  }
}
