package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateChangelogOptions;
import org.apache.flink.contrib.streaming.state.RocksDBConfigurableOptions;
import org.junit.jupiter.api.Test;

class WindowsJobConfigTest {
  @Test
  void defaults() {
    WindowsJobConfig c = WindowsJobConfig.parse(new String[0]);
    assertEquals("events.clean", c.cleanTopic);
    assertEquals("agg.windows", c.windowsTopic);
    assertEquals("agg.sessions", c.sessionsTopic);
    assertEquals("events.late", c.lateTopic);
    assertEquals("flink-windows", c.transactionalIdPrefix);
    assertEquals(900_000, c.stateRetentionMs);
    assertEquals(10_000, c.checkpointIntervalMs);
    assertFalse(c.changelog);
  }

  @Test
  void theChangelogIsOnlyEnabledWhenAsked() {
    assertFalse(WindowsJob.jobConfiguration(WindowsJobConfig.parse(new String[0]))
        .get(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG));
    WindowsJobConfig on = WindowsJobConfig.parse(new String[] {"--changelog", "on"});
    assertTrue(WindowsJob.jobConfiguration(on).get(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG));
    assertEquals("hashmap", WindowsJob.jobConfiguration(on).get(StateBackendOptions.STATE_BACKEND));
    var e = assertThrows(IllegalArgumentException.class, () -> WindowsJobConfig.parse(new String[] {"--changelog", "yes"}));
    assertEquals("--changelog='yes': expected one of [off, on]", e.getMessage());
  }

  @Test
  void interimRowsAreEmittedAtTheBarrierUnlessTicksAreAskedFor() {
    assertTrue(WindowsJobConfig.parse(new String[0]).aggregateSettings().interimAtCheckpoint);
    AggregateSettings ticks =
        WindowsJobConfig.parse(new String[] {"--interim-rows", "tick", "--emit-interval-ms", "5000"}).aggregateSettings();
    assertFalse(ticks.interimAtCheckpoint);
    assertEquals(5_000, ticks.emitIntervalMs);
    var e = assertThrows(IllegalArgumentException.class,
        () -> WindowsJobConfig.parse(new String[] {"--emit-interval-ms", "5000"}));
    assertEquals("--emit-interval-ms is the emit tick's interval and needs --interim-rows tick (interim rows are now"
        + " emitted at each checkpoint barrier)", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> WindowsJobConfig.parse(new String[] {"--interim-rows", "1s"}));
    assertEquals("--interim-rows='1s': expected one of [checkpoint, tick]", e.getMessage());
  }

  @Test
  void theSinkCompressionIsOneKafkaHas() {
    assertEquals("lz4", WindowsJobConfig.parse(new String[0]).sinkCompression);
    assertEquals("zstd", WindowsJobConfig.parse(new String[] {"--sink-compression", "zstd"}).sinkCompression);
    var e = assertThrows(IllegalArgumentException.class,
        () -> WindowsJobConfig.parse(new String[] {"--sink-compression", "lzo"}));
    assertEquals("--sink-compression='lzo': expected one of [none, lz4, zstd, snappy, gzip]", e.getMessage());
  }

  @Test
  void rocksdbGetsSmallWriteBuffersAndHashmapNoRocksdbSettings() {
    assertFalse(WindowsJob.jobConfiguration(WindowsJobConfig.parse(new String[0])).contains(RocksDBConfigurableOptions.WRITE_BUFFER_SIZE));
    WindowsJobConfig rocks = WindowsJobConfig.parse(new String[] {"--state-backend", "rocksdb"});
    assertEquals(MemorySize.parse("8mb"), WindowsJob.jobConfiguration(rocks).get(RocksDBConfigurableOptions.WRITE_BUFFER_SIZE));
  }

  @Test
  void theSessionSetsAreCompactOnlyOnTheHeapWithoutTheChangelog() {
    // RocksDB and the changelog write a value whole at every update: a set of thousands of sessions per event.
    assertEquals(WindowAggregator.SessionSets.COMPACT, WindowAggregator.SessionSets.forBackend("hashmap", false));
    assertEquals(WindowAggregator.SessionSets.MAP, WindowAggregator.SessionSets.forBackend("hashmap", true));
    assertEquals(WindowAggregator.SessionSets.MAP, WindowAggregator.SessionSets.forBackend("rocksdb", false));
    assertEquals(WindowAggregator.SessionSets.MAP, WindowAggregator.SessionSets.forBackend("rocksdb", true));
  }

  @Test
  void aBadValueNamesKeyValueAndExpectation() {
    var e = assertThrows(IllegalArgumentException.class, () -> WindowsJobConfig.parse(new String[] {"--lateness-ms", "-1"}));
    assertEquals("--lateness-ms='-1': expected an integer in [0, 3600000]", e.getMessage());
    var u = assertThrows(IllegalArgumentException.class, () -> WindowsJobConfig.parse(new String[] {"--warehouse", "x"}));
    assertTrue(u.getMessage().startsWith("unknown program argument '--warehouse'"));
  }

  @Test
  void aTransactionMustOutliveFailedCheckpointsAndTheRestartBudget() {
    WindowsJobConfig c = WindowsJobConfig.parse(new String[0]);
    // 1 h, the brokers' maximum, less 6 x (60 s timeout + 10 s interval) of failed checkpoints: 53 minutes of downtime.
    assertEquals(3_600_000 - 6 * 70_000, c.maxDowntimeMs());
    var e = assertThrows(IllegalArgumentException.class,
        () -> WindowsJobConfig.parse(new String[] {"--transaction-timeout-ms", "900000"}));
    assertTrue(e.getMessage().startsWith("--transaction-timeout-ms='900000': expected at least 1020000"), e.getMessage());
  }

  @Test
  void theTransactionalIdPrefixFollowsTheJobName() {
    assertEquals("flink-windows-test-1", WindowsJobConfig.parse(new String[] {"--job-name", "windows-test-1"}).transactionalIdPrefix);
  }
}
