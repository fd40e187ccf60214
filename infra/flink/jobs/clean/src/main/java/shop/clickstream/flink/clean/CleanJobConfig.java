package shop.clickstream.flink.clean;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/** The job's configuration, parsed once from program args ({@code --key value}); a bad value fails fast naming key, value and what was expected. */
public final class CleanJobConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Set<String> KEYS = Set.of(
      "job-name", "bootstrap", "valid-topic", "clean-topic", "group-id", "transactional-id-prefix",
      "starting-offsets", "checkpoint-interval-ms", "checkpoint-dir", "dedup-ttl-ms", "parallelism",
      "warehouse", "iceberg-namespace", "iceberg-table", "parquet-codec", "transaction-timeout-ms", "restart-budget-ms", "state-backend",
      "iceberg-snapshot-max-age-ms", "iceberg-snapshots-retained", "iceberg-expiry-interval-ms",
      "iceberg-commit-interval-ms", "rocksdb-compaction", "rocksdb-compaction-trigger",
      "rocksdb-bloom-filter", "iceberg-compaction-commits", "iceberg-compaction-target-mb",
      "iceberg-compaction-max-mb", "iceberg-compaction-poll-s");

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
  /**
   * RocksDB's compaction style for the dedup keys: {@code universal} or {@code level} (RocksDB's own default). Each
   * checkpoint flushes a small file of random event ids that overlaps every key already stored, so level compaction
   * rewrote the whole of level 1 every few seconds; universal merges sorted runs of similar size and wrote a quarter to a
   * third as much (docs/FLINK.md, "Dedup compaction"). A checkpoint written with either restores into the other.
   */
  public final String rocksdbCompaction;
  /** Sorted runs (universal) or level-0 files (level) that start a compaction of the dedup state (RocksDB's default: 4). */
  public final int rocksdbCompactionTrigger;
  /** A bloom filter per file of the dedup state: a lookup of a new event id skips the files that cannot hold it. */
  public final boolean rocksdbBloomFilter;
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
  /** Producer transaction.timeout.ms; must not exceed the brokers' transaction.max.timeout.ms (3600000). */
  public final long transactionTimeoutMs;
  /**
   * How long the job may be down (cancelled, cluster stopped, restarting) and still recover without losing data:
   * what is left of the transaction timeout after the worst run of failed checkpoints (see {@link #maxOpenMs}).
   */
  public final long restartBudgetMs;

  /** The checkpoint timeout and the failed checkpoints in a row that the job tolerates (see CleanJob). */
  public static final long CHECKPOINT_TIMEOUT_MS = 120_000;
  public static final int TOLERABLE_CHECKPOINT_FAILURES = 5;
  /** The brokers' transaction.max.timeout.ms (infra/local/kafka/server.properties.tmpl, compose). */
  public static final long BROKER_MAX_TRANSACTION_TIMEOUT_MS = 3_600_000;

  private CleanJobConfig(Map<String, String> a) {
    jobName = a.getOrDefault("job-name", "clean");
    bootstrap = a.getOrDefault("bootstrap", "127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092");
    validTopic = a.getOrDefault("valid-topic", "events.valid");
    cleanTopic = a.getOrDefault("clean-topic", "events.clean");
    groupId = a.getOrDefault("group-id", "flink-" + jobName);
    // Deterministic (not random) so that a restarted job aborts the transactions its predecessor left open.
    transactionalIdPrefix = a.getOrDefault("transactional-id-prefix", "flink-" + jobName + "-" + cleanTopic);
    startingOffsets = oneOf(a, "starting-offsets", "committed", List.of("committed", "earliest", "latest"));
    // 1 s: events.clean (and so ClickHouse's clean table) within about a second of events.valid. Iceberg commits on its
    // own, longer cadence (iceberg-commit-interval-ms), so this does not multiply its files and snapshots.
    checkpointIntervalMs = number(a, "checkpoint-interval-ms", 1_000, 100, 600_000);
    checkpointDir = a.get("checkpoint-dir");
    dedupTtlMs = number(a, "dedup-ttl-ms", 3_600_000, 1_000, 30L * 24 * 3_600_000);
    stateBackend = oneOf(a, "state-backend", DEFAULT_STATE_BACKEND, List.of("rocksdb", "hashmap"));
    rocksdbCompaction = oneOf(a, "rocksdb-compaction", "universal", List.of("universal", "level"));
    rocksdbCompactionTrigger = (int) number(a, "rocksdb-compaction-trigger", DedupRocksDBOptions.COMPACTION_TRIGGER.defaultValue(), 2, 64);
    rocksdbBloomFilter = oneOf(a, "rocksdb-bloom-filter", "off", List.of("off", "on")).equals("on");
    parallelism = (int) number(a, "parallelism", 2, 1, 64);
    warehouse = a.getOrDefault("warehouse", ".run/iceberg/warehouse");
    icebergNamespace = identifier(a, "iceberg-namespace", "clickstream");
    icebergTable = identifier(a, "iceberg-table", "events_clean");
    parquetCodec = oneOf(a, "parquet-codec", "snappy", List.of("uncompressed", "snappy", "zstd", "gzip"));
    icebergSnapshotMaxAgeMs = number(a, "iceberg-snapshot-max-age-ms", 3_600_000, 60_000, 365L * 24 * 3_600_000);
    icebergSnapshotsRetained = (int) number(a, "iceberg-snapshots-retained", 10, 1, 100_000);
    icebergExpiryIntervalMs = number(a, "iceberg-expiry-interval-ms", 60_000, 0, 24L * 3_600_000);
    icebergCommitIntervalMs = number(a, "iceberg-commit-interval-ms", 5_000, 0, 3_600_000);
    icebergCompactionCommits = (int) number(a, "iceberg-compaction-commits", 0, 0, 1_000_000);
    icebergCompactionTargetMb = number(a, "iceberg-compaction-target-mb", 32, 1, 1_024);
    icebergCompactionMaxMb = number(a, "iceberg-compaction-max-mb", 128, 1, 1_000_000);
    icebergCompactionPollS = number(a, "iceberg-compaction-poll-s", 60, 1, 3_600);
    transactionTimeoutMs = number(a, "transaction-timeout-ms", BROKER_MAX_TRANSACTION_TIMEOUT_MS, 60_000,
        BROKER_MAX_TRANSACTION_TIMEOUT_MS);
    restartBudgetMs = number(a, "restart-budget-ms", 600_000, 0, BROKER_MAX_TRANSACTION_TIMEOUT_MS);
    // A transaction must outlive everything between its opening and the commit of its checkpoint, or the broker
    // aborts it and the recovered job's commit finds it gone: the connector then logs data loss and drops it.
    long needed = maxOpenMs(checkpointIntervalMs) + restartBudgetMs;
    if (transactionTimeoutMs < needed) {
      throw new IllegalArgumentException("--transaction-timeout-ms='" + transactionTimeoutMs + "': expected at least "
          + needed + " = (tolerable checkpoint failures " + TOLERABLE_CHECKPOINT_FAILURES + " + 1) x (checkpoint timeout "
          + CHECKPOINT_TIMEOUT_MS + " + checkpoint-interval-ms " + checkpointIntervalMs + ") + restart-budget-ms "
          + restartBudgetMs + ", so that a transaction outlives failed checkpoints and a restart");
    }
  }

  /**
   * The longest a transaction stays open while the job runs: every checkpoint after the one that opened it times
   * out, up to the tolerated number, before the job fails over.
   */
  public static long maxOpenMs(long checkpointIntervalMs) {
    return (TOLERABLE_CHECKPOINT_FAILURES + 1L) * (CHECKPOINT_TIMEOUT_MS + checkpointIntervalMs);
  }

  /** How long the job may be down and still recover every open transaction (logged at start, in docs/FLINK.md). */
  public long maxDowntimeMs() {
    return transactionTimeoutMs - maxOpenMs(checkpointIntervalMs);
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
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      String key = args[i];
      if (!key.startsWith("--") || !KEYS.contains(key.substring(2))) {
        throw new IllegalArgumentException("unknown program argument '" + key + "'; expected one of --" + String.join(", --", KEYS.stream().sorted().toList()));
      }
      if (i + 1 >= args.length) throw new IllegalArgumentException("program argument " + key + " has no value");
      map.put(key.substring(2), args[i + 1]);
    }
    return new CleanJobConfig(map);
  }

  private static long number(Map<String, String> a, String key, long dflt, long min, long max) {
    String raw = a.get(key);
    if (raw == null) return dflt;
    return checked(key, raw, "an integer in [" + min + ", " + max + "]", s -> {
      long v = Long.parseLong(s.trim());
      return v >= min && v <= max ? v : null;
    });
  }

  private static String oneOf(Map<String, String> a, String key, String dflt, List<String> allowed) {
    String raw = a.getOrDefault(key, dflt);
    return checked(key, raw, "one of " + allowed, s -> allowed.contains(s) ? s : null);
  }

  private static String identifier(Map<String, String> a, String key, String dflt) {
    String raw = a.getOrDefault(key, dflt);
    return checked(key, raw, "an identifier [a-z0-9_]+", s -> s.matches("[a-z0-9_]+") ? s : null);
  }

  private static <T> T checked(String key, String raw, String expected, Function<String, T> parse) {
    T v;
    try {
      v = parse.apply(raw);
    } catch (RuntimeException e) {
      v = null;
    }
    if (v == null) throw new IllegalArgumentException("--" + key + "='" + raw + "': expected " + expected);
    return v;
  }
}
