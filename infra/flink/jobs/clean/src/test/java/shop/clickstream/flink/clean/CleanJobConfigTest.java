package shop.clickstream.flink.clean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateChangelogOptions;
import org.apache.flink.contrib.streaming.state.ConfigurableRocksDBOptionsFactory;
import org.apache.flink.contrib.streaming.state.RocksDBConfigurableOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactionStyle;

/** Program-argument parsing: defaults, overrides, and errors that name the key, the value and what was expected. */
class CleanJobConfigTest {
  /** The job configuration the clean job builds from these program arguments. */
  private static Configuration jobConf(String... args) {
    return CleanJob.jobConfiguration(CleanJobConfig.parse(args));
  }

  /** The compaction trigger the dedup state's options factory reads from that configuration, as Flink configures it. */
  private static int triggerFor(String... args) {
    return ((DedupRocksDBOptions) new DedupRocksDBOptions().configure(jobConf(args))).compactionTrigger();
  }

  @Test
  void defaults() {
    CleanJobConfig c = CleanJobConfig.parse(new String[0]);
    assertEquals("events.valid", c.validTopic);
    assertEquals("events.clean", c.cleanTopic);
    assertEquals(1_000, c.checkpointIntervalMs);
    assertEquals(5_000, c.icebergCommitIntervalMs);
    assertEquals(3_600_000, c.dedupTtlMs);
    assertEquals(2, c.parallelism);
    assertEquals(3_600_000, c.transactionTimeoutMs);
    assertEquals(600_000, c.restartBudgetMs);
    // 6 x (120 s + 1 s) of failed checkpoints leave 47.9 minutes of downtime that recovery survives.
    assertEquals(2_874_000, c.maxDowntimeMs());
    assertEquals("flink-clean-events.clean", c.transactionalIdPrefix);
    assertEquals(3_600_000, c.icebergSnapshotMaxAgeMs);
    assertEquals(10, c.icebergSnapshotsRetained);
    assertEquals(60_000, c.icebergExpiryIntervalMs);
    assertEquals("universal", c.rocksdbCompaction);
  }

  @Test
  void rocksdbCompactionIsUniversalOrLevelAndReachesTheJobConfiguration() {
    assertEquals("level", CleanJobConfig.parse(new String[] {"--rocksdb-compaction", "level"}).rocksdbCompaction);
    assertEquals(CompactionStyle.UNIVERSAL, jobConf().get(RocksDBConfigurableOptions.COMPACTION_STYLE));
    assertEquals(CompactionStyle.LEVEL, jobConf("--rocksdb-compaction", "level").get(RocksDBConfigurableOptions.COMPACTION_STYLE));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--rocksdb-compaction", "fifo"}));
    assertTrue(e.getMessage().contains("--rocksdb-compaction='fifo'"), e.getMessage());
  }

  @Test
  void theCompactionTriggerReachesRocksDBThroughTheOptionsFactory() throws Exception {
    Configuration conf = jobConf("--rocksdb-compaction-trigger", "12");
    assertEquals(DedupRocksDBOptions.class.getName(), conf.get(RocksDBOptions.OPTIONS_FACTORY));
    // As Flink does: the factory by its class name, configured from the job's configuration.
    var factory = (DedupRocksDBOptions) ((ConfigurableRocksDBOptionsFactory) Class.forName(conf.get(RocksDBOptions.OPTIONS_FACTORY))
        .getDeclaredConstructor().newInstance()).configure(conf);
    try (ColumnFamilyOptions o = new ColumnFamilyOptions()) {
      factory.createColumnOptions(o, new ArrayList<>());
      assertEquals(12, o.level0FileNumCompactionTrigger());
      assertEquals(28, o.level0SlowdownWritesTrigger());
      assertEquals(44, o.level0StopWritesTrigger());
    }
    // 12 by default, with the bloom filter; RocksDB's 4 without it, unless given.
    assertEquals(12, triggerFor());
    assertEquals(4, triggerFor("--rocksdb-bloom-filter", "off"));
    assertEquals(8, triggerFor("--rocksdb-bloom-filter", "off", "--rocksdb-compaction-trigger", "8"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--rocksdb-compaction-trigger", "1"}));
    assertTrue(e.getMessage().contains("--rocksdb-compaction-trigger='1'"), e.getMessage());
  }

  @Test
  void icebergCompactionDefaultsAndBounds() {
    CleanJobConfig d = CleanJobConfig.parse(new String[0]);
    assertEquals(0, d.icebergCompactionCommits);
    assertEquals(32, d.icebergCompactionTargetMb);
    assertEquals(128, d.icebergCompactionMaxMb);
    assertEquals(60, d.icebergCompactionPollS);
    CleanJobConfig c = CleanJobConfig.parse(new String[] {"--iceberg-compaction-commits", "6", "--iceberg-compaction-poll-s", "2"});
    assertEquals(6, c.icebergCompactionCommits);
    assertEquals(2, c.icebergCompactionPollS);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--iceberg-compaction-poll-s", "500ms"}));
    assertTrue(e.getMessage().contains("--iceberg-compaction-poll-s='500ms'"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--iceberg-compaction-target-mb", "0"}));
    assertTrue(e.getMessage().contains("--iceberg-compaction-target-mb='0'"), e.getMessage());
  }

  @Test
  void keepsMoreMetadataVersionsThanCommitsBetweenTwoRefreshesOfAnOpenTable() {
    // Defaults: a commit at most every 5 s, the expiry and the compaction's monitor each refresh once a minute (12).
    assertEquals(34, CleanJobConfig.parse(new String[0]).metadataVersionsKept());
    // Compaction after 120 commits: its committer refreshes after 120 + 12 commits.
    assertEquals(274, CleanJobConfig.parse(new String[] {"--iceberg-compaction-commits", "120"}).metadataVersionsKept());
    // Commits at every 1 s checkpoint: the expiry's minute now spans 60 commits.
    assertEquals(130, CleanJobConfig.parse(new String[] {"--iceberg-commit-interval-ms", "0"}).metadataVersionsKept());
    // Never below Iceberg's default.
    assertEquals(20, CleanJobConfig.parse(new String[] {"--iceberg-commit-interval-ms", "600000",
        "--iceberg-compaction-poll-s", "1"}).metadataVersionsKept());
  }

  @Test
  void bloomFiltersAreOnByDefaultAndOffWhenAsked() {
    assertEquals(true, jobConf().get(RocksDBConfigurableOptions.USE_BLOOM_FILTER));
    assertEquals(false, jobConf("--rocksdb-bloom-filter", "off").get(RocksDBConfigurableOptions.USE_BLOOM_FILTER));
    assertEquals(true, jobConf("--rocksdb-bloom-filter", "on").get(RocksDBConfigurableOptions.USE_BLOOM_FILTER));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--rocksdb-bloom-filter", "yes"}));
    assertTrue(e.getMessage().contains("--rocksdb-bloom-filter='yes'"), e.getMessage());
  }

  @Test
  void partitionedIndexesFollowTheBloomFilterUnlessAsked() {
    assertEquals(true, jobConf().get(RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS));
    assertEquals(false, jobConf("--rocksdb-bloom-filter", "off").get(RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS));
    assertEquals(false, jobConf("--rocksdb-partitioned-index", "off").get(RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS));
    assertEquals(true, jobConf("--rocksdb-partitioned-index", "off").get(RocksDBConfigurableOptions.USE_BLOOM_FILTER));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--rocksdb-bloom-filter", "off", "--rocksdb-partitioned-index", "on"}));
    assertTrue(e.getMessage().contains("needs --rocksdb-bloom-filter on"), e.getMessage());
  }

  @Test
  void theChangelogIsOnlyEnabledWhenAsked() {
    assertEquals(false, jobConf().get(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG));
    Configuration on = jobConf("--changelog", "on");
    assertEquals(true, on.get(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG));
    // Smaller memtables, since no checkpoint flushes them any more.
    assertEquals(MemorySize.parse("8mb"), on.get(RocksDBConfigurableOptions.WRITE_BUFFER_SIZE));
    assertEquals(RocksDBConfigurableOptions.WRITE_BUFFER_SIZE.defaultValue(),
        jobConf().get(RocksDBConfigurableOptions.WRITE_BUFFER_SIZE));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--changelog", "yes"}));
    assertEquals("--changelog='yes': expected one of [off, on]", e.getMessage());
  }

  @Test
  void theSinkCompressionIsOneKafkaHas() {
    assertEquals("lz4", CleanJobConfig.parse(new String[0]).sinkCompression);
    assertEquals("none", CleanJobConfig.parse(new String[] {"--sink-compression", "none"}).sinkCompression);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--sink-compression", "lzo"}));
    assertEquals("--sink-compression='lzo': expected one of [none, lz4, zstd, snappy, gzip]", e.getMessage());
  }

  @Test
  void theSinkLingerIsFiftyMsUnlessGivenAndAtMostAMinute() {
    assertEquals(50, CleanJobConfig.parse(new String[0]).sinkLingerMs);
    assertEquals(1000, CleanJobConfig.parse(new String[] {"--sink-linger-ms", "1000"}).sinkLingerMs);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--sink-linger-ms", "60001"}));
    assertEquals("--sink-linger-ms='60001': expected an integer in [0, 60000]", e.getMessage());
  }

  @Test
  void refusesASnapshotRetentionThatWouldExpireTheNewestSnapshot() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--iceberg-snapshots-retained", "0"}));
    assertEquals("--iceberg-snapshots-retained='0': expected an integer in [1, 100000]", e.getMessage());
    assertEquals(0, CleanJobConfig.parse(new String[] {"--iceberg-expiry-interval-ms", "0"}).icebergExpiryIntervalMs);
  }

  @Test
  void icebergCommitIntervalIsBoundedAndZeroMeansEveryCheckpoint() {
    assertEquals(0, CleanJobConfig.parse(new String[] {"--iceberg-commit-interval-ms", "0"}).icebergCommitIntervalMs);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--iceberg-commit-interval-ms", "-1"}));
    assertEquals("--iceberg-commit-interval-ms='-1': expected an integer in [0, 3600000]", e.getMessage());
  }

  @Test
  void overrides() {
    CleanJobConfig c = CleanJobConfig.parse(new String[] {"--clean-topic", "c1", "--parallelism", "1", "--job-name", "t"});
    assertEquals("c1", c.cleanTopic);
    assertEquals(1, c.parallelism);
    assertEquals("flink-t-c1", c.transactionalIdPrefix);
  }

  @Test
  void refusesATransactionTimeoutThatFailedCheckpointsAndARestartWouldOutlive() {
    // 600 s (an old default) < 6 x 121 s of failed checkpoints + a 10-minute restart budget.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--transaction-timeout-ms", "600000"}));
    assertTrue(e.getMessage().contains("expected at least 1326000"), e.getMessage());
    CleanJobConfig c = CleanJobConfig.parse(new String[] {"--transaction-timeout-ms", "1350000"});
    assertEquals(624_000, c.maxDowntimeMs());
    assertThrows(IllegalArgumentException.class, () -> CleanJobConfig.parse(
        new String[] {"--transaction-timeout-ms", "1350000", "--checkpoint-interval-ms", "6000"}));
  }

  @Test
  void errorsNameKeyValueAndExpectation() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--transaction-timeout-ms", "4000000"}));
    assertTrue(e.getMessage().contains("--transaction-timeout-ms='4000000'"), e.getMessage());
    assertTrue(e.getMessage().contains("[60000, 3600000]"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> CleanJobConfig.parse(new String[] {"--nope", "1"}));
    assertThrows(IllegalArgumentException.class, () -> CleanJobConfig.parse(new String[] {"--parquet-codec", "lz4"}));
    assertThrows(IllegalArgumentException.class, () -> CleanJobConfig.parse(new String[] {"--parallelism"}));
  }
}
