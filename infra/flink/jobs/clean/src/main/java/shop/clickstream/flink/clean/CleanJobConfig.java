package shop.clickstream.flink.clean;

import java.io.Serializable;
import java.util.List;
import java.util.Set;
import shop.clickstream.flink.support.Checkpointing;
import shop.clickstream.flink.support.KafkaSinks;
import shop.clickstream.flink.support.KafkaSources;
import shop.clickstream.flink.support.ProgramArgs;

/** The job's configuration, parsed once from program args ({@code --key value}); a bad value fails fast naming key, value and what was expected. */
public final class CleanJobConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Set<String> KEYS = Set.of(
      "job-name", "bootstrap", "valid-topic", "clean-topic", "group-id", "transactional-id-prefix",
      "starting-offsets", "checkpoint-interval-ms", "checkpoint-dir", "dedup-ttl-ms", "parallelism",
      "warehouse", "iceberg-namespace", "iceberg-table", "parquet-codec", "transaction-timeout-ms", "restart-budget-ms", "state-backend",
      "iceberg-snapshot-max-age-ms", "iceberg-snapshots-retained", "iceberg-expiry-interval-ms",
      "iceberg-commit-interval-ms", "rocksdb-compaction", "rocksdb-compaction-trigger",
      "rocksdb-bloom-filter", "rocksdb-partitioned-index", "iceberg-compaction-commits", "iceberg-compaction-target-mb",
      "iceberg-compaction-max-mb", "iceberg-compaction-poll-s", "changelog", "sink-compression",
      "sink-linger-ms");

  public final String jobName;
  public final String bootstrap;
  public final String validTopic;
  public final String cleanTopic;
  public final String groupId;
  public final String transactionalIdPrefix;
  /** Where a start without a checkpoint begins: {@code committed} (the group's offsets, else earliest), {@code earliest} or {@code latest}. */
  public final String startingOffsets;
  public final long checkpointIntervalMs;
  /** Checkpoint storage URI (file:///...); null keeps the cluster's state.checkpoints.dir. */
  public final String checkpointDir;
  public final long dedupTtlMs;
  /** {@link #DEFAULT_STATE_BACKEND} or the other of {@code rocksdb} and {@code hashmap}. */
  public final String stateBackend;
  /**
   * {@code rocksdb}: dedup state of rate x TTL keys does not fit the shared TaskManager heap. The one place this default
   * is stated: infra/flink/submit.sh reads it from this line (job_backend) for a submission that names no backend.
   */
  public static final String DEFAULT_STATE_BACKEND = "rocksdb";
  /** The compaction trigger's default with the bloom filter on ({@link #rocksdbCompactionTrigger}). */
  static final int BLOOM_COMPACTION_TRIGGER = 12;
  /**
   * RocksDB's compaction style for the dedup keys: {@code universal} or {@code level} (RocksDB's own default). Each
   * checkpoint flushes a small file of random event ids that overlaps every key already stored, so level compaction
   * rewrote the whole of level 1 every few seconds; universal merges sorted runs of similar size and wrote a quarter to a
   * third as much (docs/FLINK.md, "Dedup compaction"). A checkpoint written with either restores into the other.
   */
  public final String rocksdbCompaction;
  /**
   * Sorted runs (universal) or level-0 files (level) that start a compaction of the dedup state: 12 with the bloom
   * filter, 4 (RocksDB's default) without. At 4, each small flush was merged at once into the newest large run; at 12
   * the small runs merge among themselves first. A lookup of a new event id checks every run, which the bloom filters
   * make cheap (docs/FLINK.md, "Dedup compaction").
   */
  public final int rocksdbCompactionTrigger;
  /** A bloom filter per file of the dedup state: a lookup of a new event id skips the files that cannot hold it. */
  public final boolean rocksdbBloomFilter;
  /**
   * Index (and filter) blocks of the dedup state cut into partitions under a small top-level index: the block cache,
   * which shares the slot's managed memory with the memtables, then holds the parts a lookup needs rather than loading
   * a whole file's index (or filter) for it.
   */
  public final boolean rocksdbPartitionedIndex;
  /**
   * Flink's changelog state backend over {@link #stateBackend}: every dedup key written is also appended to the
   * cluster's changelog storage, so a checkpoint uploads the changes since the last one, and RocksDB flushes and
   * compacts only at a materialisation (every 10 minutes) instead of at every 1 s checkpoint, with 8 MB memtables
   * (docs/FLINK.md, "Dedup compaction"). Off by default: with 64 MB memtables the job fell behind at 2,000 events/s in
   * both rounds; with 8 MB it kept up in the one round measured.
   */
  public final boolean changelog;
  public final int parallelism;
  /** Hadoop-catalog warehouse root (a path or file:// URI). */
  public final String warehouse;
  public final String icebergNamespace;
  public final String icebergTable;
  public final String parquetCodec;
  /**
   * Iceberg snapshots older than this are expired (time travel and incremental reads reach this far back), except the
   * newest {@link #icebergSnapshotsRetained}; checked every {@link #icebergExpiryIntervalMs}, 0 = never
   * ({@link IcebergSnapshotExpiry}, docs/FLINK.md "Iceberg snapshot expiry").
   */
  public final long icebergSnapshotMaxAgeMs;
  public final int icebergSnapshotsRetained;
  public final long icebergExpiryIntervalMs;
  /**
   * The shortest time between two Iceberg commits ({@link IcebergCadence}): rows reach the Iceberg sink at the first
   * checkpoint this long after the last release. 0 = at every checkpoint.
   */
  public final long icebergCommitIntervalMs;
  /**
   * Small-file compaction ({@link IcebergCompaction}): a rewrite of the small data files runs after this many Iceberg
   * commits; 0 = never, the default (docs/FLINK.md, "Small-file compaction"). The table keeps enough metadata versions
   * for any N ({@link #metadataVersionsKept}).
   */
  public final int icebergCompactionCommits;
  /** The size a compacted data file aims at, MB. */
  public final long icebergCompactionTargetMb;
  /** At most this many MB of small files rewritten by one compaction (a backlog is worked off over several). */
  public final long icebergCompactionMaxMb;
  /** How often the compaction's monitor reads the table's new snapshots, and the least time between two compactions, s. */
  public final long icebergCompactionPollS;
  /** The Kafka sinks' compression.type: {@link KafkaSinks#DEFAULT_COMPRESSION} unless given. */
  public final String sinkCompression;
  /** The Kafka sinks' linger.ms: {@link KafkaSinks#DEFAULT_LINGER_MS} unless given. */
  public final long sinkLingerMs;
  /** Producer transaction.timeout.ms; must not exceed the brokers' transaction.max.timeout.ms (3600000). */
  public final long transactionTimeoutMs;
  /**
   * How long the job may be down (cancelled, cluster stopped, restarting) and still recover without losing data:
   * what is left of the transaction timeout after the worst run of failed checkpoints (see {@link Checkpointing#maxOpenMs}).
   */
  public final long restartBudgetMs;

  /** The checkpoint timeout and the failed checkpoints in a row that the job tolerates (see CleanJob). */
  public static final long CHECKPOINT_TIMEOUT_MS = 120_000;
  public static final int TOLERABLE_CHECKPOINT_FAILURES = 5;
  /** The brokers' transaction.max.timeout.ms (infra/local/kafka/server.properties.tmpl, compose). */
  public static final long BROKER_MAX_TRANSACTION_TIMEOUT_MS = 3_600_000;

  private CleanJobConfig(ProgramArgs a) {
    jobName = a.text("job-name", "clean");
    bootstrap = a.text("bootstrap", "127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092");
    validTopic = a.text("valid-topic", "events.valid");
    cleanTopic = a.text("clean-topic", "events.clean");
    groupId = a.text("group-id", "flink-" + jobName);
    // Deterministic (not random) so that a restarted job aborts the transactions its predecessor left open.
    transactionalIdPrefix = a.text("transactional-id-prefix", "flink-" + jobName + "-" + cleanTopic);
    startingOffsets = a.oneOf("starting-offsets", "committed", KafkaSources.STARTING_OFFSETS);
    // 1 s: events.clean (and so ClickHouse's clean table) within about a second of events.valid. Iceberg commits on its
    // own, longer cadence (iceberg-commit-interval-ms), so this does not multiply its files and snapshots.
    checkpointIntervalMs = a.number("checkpoint-interval-ms", 1_000, 100, 600_000);
    checkpointDir = a.optional("checkpoint-dir");
    dedupTtlMs = a.number("dedup-ttl-ms", 3_600_000, 1_000, 30L * 24 * 3_600_000);
    stateBackend = a.oneOf("state-backend", DEFAULT_STATE_BACKEND, List.of("rocksdb", "hashmap"));
    rocksdbCompaction = a.oneOf("rocksdb-compaction", "universal", List.of("universal", "level"));
    // On together by default: the dedup thread's CPU halved in each of three rounds at 2,000 events/s
    // (docs/MEASUREMENTS.md, "Bloom filters with partitioned index and filter blocks").
    rocksdbBloomFilter = a.onOff("rocksdb-bloom-filter", "on");
    rocksdbPartitionedIndex = a.onOff("rocksdb-partitioned-index", rocksdbBloomFilter ? "on" : "off");
    rocksdbCompactionTrigger = (int) a.number("rocksdb-compaction-trigger",
        rocksdbBloomFilter ? BLOOM_COMPACTION_TRIGGER : DedupRocksDBOptions.COMPACTION_TRIGGER.defaultValue(), 2, 64);
    // Flink partitions the index only together with a filter (RocksDBResourceContainer): alone, the flag would be
    // silently ignored.
    if (rocksdbPartitionedIndex && !rocksdbBloomFilter)
      throw new IllegalArgumentException("--rocksdb-partitioned-index='on' needs --rocksdb-bloom-filter on: Flink"
          + " partitions the index and filter blocks only when there is a filter");
    changelog = a.onOff("changelog", "off");
    parallelism = (int) a.number("parallelism", 2, 1, 64);
    warehouse = a.text("warehouse", ".run/iceberg/warehouse");
    icebergNamespace = a.identifier("iceberg-namespace", "clickstream");
    icebergTable = a.identifier("iceberg-table", "events_clean");
    parquetCodec = a.oneOf("parquet-codec", "snappy", List.of("uncompressed", "snappy", "zstd", "gzip"));
    icebergSnapshotMaxAgeMs = a.number("iceberg-snapshot-max-age-ms", 3_600_000, 60_000, 365L * 24 * 3_600_000);
    icebergSnapshotsRetained = (int) a.number("iceberg-snapshots-retained", 10, 1, 100_000);
    icebergExpiryIntervalMs = a.number("iceberg-expiry-interval-ms", 60_000, 0, 24L * 3_600_000);
    icebergCommitIntervalMs = a.number("iceberg-commit-interval-ms", 5_000, 0, 3_600_000);
    icebergCompactionCommits = (int) a.number("iceberg-compaction-commits", 0, 0, 1_000_000);
    icebergCompactionTargetMb = a.number("iceberg-compaction-target-mb", 32, 1, 1_024);
    icebergCompactionMaxMb = a.number("iceberg-compaction-max-mb", 128, 1, 1_000_000);
    icebergCompactionPollS = a.number("iceberg-compaction-poll-s", 60, 1, 3_600);
    sinkCompression = a.oneOf("sink-compression", KafkaSinks.DEFAULT_COMPRESSION, KafkaSinks.COMPRESSION);
    sinkLingerMs = a.number("sink-linger-ms", KafkaSinks.DEFAULT_LINGER_MS, 0, KafkaSinks.MAX_LINGER_MS);
    transactionTimeoutMs = a.number("transaction-timeout-ms", BROKER_MAX_TRANSACTION_TIMEOUT_MS, 60_000,
        BROKER_MAX_TRANSACTION_TIMEOUT_MS);
    restartBudgetMs = a.number("restart-budget-ms", 600_000, 0, BROKER_MAX_TRANSACTION_TIMEOUT_MS);
    // A transaction must outlive everything between its opening and the commit of its checkpoint.
    checkpointing().requireTransactionTimeout(transactionTimeoutMs, restartBudgetMs);
  }

  /** The job's checkpoints: every {@link #checkpointIntervalMs}, {@link #CHECKPOINT_TIMEOUT_MS}, {@link #TOLERABLE_CHECKPOINT_FAILURES}. */
  public Checkpointing checkpointing() {
    return new Checkpointing(checkpointIntervalMs, CHECKPOINT_TIMEOUT_MS, TOLERABLE_CHECKPOINT_FAILURES);
  }

  /** How long the job may be down and still recover every open transaction (logged at start, in docs/FLINK.md). */
  public long maxDowntimeMs() {
    return transactionTimeoutMs - checkpointing().maxOpenMs();
  }

  /**
   * How many old metadata files the table keeps (write.metadata.previous-versions-max, set at every start): twice the
   * most commits that can come between two refreshes of a table this job holds open, plus 10, and at least Iceberg's
   * default of 20. Such a table (the snapshot expiry's, the compaction's monitor, planner and committer) refreshes
   * from its cached metadata version, and a Hadoop-catalog table fails that refresh once the version's file has been
   * deleted ("Metadata file for version N is missing"). Commits come at most once per commit interval (or checkpoint).
   */
  public int metadataVersionsKept() {
    long commitEveryMs = Math.max(icebergCommitIntervalMs, checkpointIntervalMs);
    long expiry = ceilDiv(icebergExpiryIntervalMs, commitEveryMs);
    long compaction = icebergCompactionCommits + ceilDiv(icebergCompactionPollS * 1000, commitEveryMs);
    return (int) Math.max(20, 2 * Math.max(expiry, compaction) + 10);
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  /** Parses {@code --key value} pairs; unknown keys and missing values are errors. */
  public static CleanJobConfig parse(String[] args) {
    return new CleanJobConfig(ProgramArgs.parse(args, KEYS));
  }
}
