package shop.clickstream.flink.windows;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/** The windows job's configuration, parsed once from program args ({@code --key value}); a bad value names key, value and what was expected. */
public final class WindowsJobConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Set<String> KEYS = Set.of(
      "job-name", "bootstrap", "clean-topic", "windows-topic", "sessions-topic", "late-topic", "group-id",
      "transactional-id-prefix", "starting-offsets", "checkpoint-interval-ms", "checkpoint-dir", "parallelism",
      "state-backend", "transaction-timeout-ms", "restart-budget-ms", "lateness-ms", "out-of-orderness-ms", "idleness-ms",
      "emit-interval-ms", "state-retention-ms", "changelog");

  public final String jobName;
  public final String bootstrap;
  public final String cleanTopic;
  public final String windowsTopic;
  public final String sessionsTopic;
  public final String lateTopic;
  public final String groupId;
  /** Each sink's transactional id prefix is this + "-" + its topic; unique per job name by default. */
  public final String transactionalIdPrefix;
  public final String startingOffsets;
  public final long checkpointIntervalMs;
  public final String checkpointDir;
  public final int parallelism;
  /** {@link #DEFAULT_STATE_BACKEND} or the other of {@code hashmap} and {@code rocksdb} (incremental checkpoints). */
  public final String stateBackend;
  /**
   * {@code hashmap}: the state is about 14 MB at 1,000 events/s since a session keeps one timer, not two per event; on
   * two cores RocksDB's per-checkpoint memtable flushes piled up level-0 files faster than compaction could merge them
   * and stalled the job's writes, see docs/FLINK.md. The one place this default is stated: infra/flink/submit.sh reads
   * it from this line (job_backend) to check and record the backend of a submission that names none.
   */
  public static final String DEFAULT_STATE_BACKEND = "hashmap";
  /**
   * Flink's changelog state backend on top of {@link #stateBackend}: every state change is written to the cluster's
   * changelog storage as it happens, so a checkpoint uploads the changes since the last one instead of the whole heap
   * (the state is materialised in full every 10 minutes); off by default (docs/FLINK.md, "State backend").
   */
  public final boolean changelog;
  /** Producer transaction.timeout.ms of the three sinks; at most the brokers' transaction.max.timeout.ms. */
  public final long transactionTimeoutMs;
  /** How long the job may be down and still commit every transaction its last checkpoint holds. */
  public final long restartBudgetMs;

  /** Checkpoint timeout and tolerated failed checkpoints in a row (see WindowsJob): bound a transaction's life. */
  public static final long CHECKPOINT_TIMEOUT_MS = 60_000;
  public static final int TOLERABLE_CHECKPOINT_FAILURES = 5;
  /** L of the lateness rule; must equal the run manifest's value that the reconciler uses. */
  public final long latenessMs;
  /** Watermark bound on ingest-time disorder within a partition of events.clean; only delays finality. */
  public final long outOfOrdernessMs;
  /** A partition without records for this long stops holding the watermark back. */
  public final long idlenessMs;
  public final long emitIntervalMs;
  public final long stateRetentionMs;

  private WindowsJobConfig(Map<String, String> a) {
    jobName = a.getOrDefault("job-name", "windows");
    bootstrap = a.getOrDefault("bootstrap", "127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092");
    cleanTopic = a.getOrDefault("clean-topic", "events.clean");
    windowsTopic = a.getOrDefault("windows-topic", "agg.windows");
    sessionsTopic = a.getOrDefault("sessions-topic", "agg.sessions");
    lateTopic = a.getOrDefault("late-topic", "events.late");
    groupId = a.getOrDefault("group-id", "flink-" + jobName);
    // Deterministic (not random) so that a restarted job aborts the transactions its predecessor left open.
    transactionalIdPrefix = a.getOrDefault("transactional-id-prefix", "flink-" + jobName);
    startingOffsets = oneOf(a, "starting-offsets", "committed", List.of("committed", "earliest", "latest"));
    checkpointIntervalMs = number(a, "checkpoint-interval-ms", 5_000, 100, 600_000);
    checkpointDir = a.get("checkpoint-dir");
    parallelism = (int) number(a, "parallelism", 1, 1, 64);
    stateBackend = oneOf(a, "state-backend", DEFAULT_STATE_BACKEND, List.of("hashmap", "rocksdb"));
    changelog = oneOf(a, "changelog", "off", List.of("off", "on")).equals("on");
    // 900000 is what brokers started before the 1 h setting (infra/local/kafka) allow; up to 3600000 after.
    transactionTimeoutMs = number(a, "transaction-timeout-ms", 3_600_000, 60_000, 3_600_000);
    restartBudgetMs = number(a, "restart-budget-ms", 600_000, 0, 3_600_000);
    latenessMs = number(a, "lateness-ms", 5_000, 0, 3_600_000);
    outOfOrdernessMs = number(a, "out-of-orderness-ms", 3_000, 0, 600_000);
    // Longer than a partition leader's failover after a broker kill (about 10 s): a partition that only waits for
    // its new leader must keep holding the watermark back, or its events arrive behind it (correct, but corrections
    // after is_final). The cost: after traffic stops, the last rows become final up to 30 s later.
    idlenessMs = number(a, "idleness-ms", 30_000, 100, 3_600_000);
    emitIntervalMs = number(a, "emit-interval-ms", 1_000, 1, 600_000);
    stateRetentionMs = number(a, "state-retention-ms", 900_000, 1, 7L * 24 * 3_600_000);
    // A transaction must outlive the failed checkpoints the job tolerates plus a restart, or the broker aborts it and
    // the recovered job's commit finds it gone (the connector logs data loss and drops it).
    long needed = maxOpenMs(checkpointIntervalMs) + restartBudgetMs;
    if (transactionTimeoutMs < needed) {
      throw new IllegalArgumentException("--transaction-timeout-ms='" + transactionTimeoutMs + "': expected at least "
          + needed + " = (" + TOLERABLE_CHECKPOINT_FAILURES + " + 1) x (checkpoint timeout " + CHECKPOINT_TIMEOUT_MS
          + " + checkpoint-interval-ms " + checkpointIntervalMs + ") + restart-budget-ms " + restartBudgetMs);
    }
  }

  /** The longest a transaction stays open while the job runs: every later checkpoint times out, up to the limit. */
  public static long maxOpenMs(long checkpointIntervalMs) {
    return (TOLERABLE_CHECKPOINT_FAILURES + 1L) * (CHECKPOINT_TIMEOUT_MS + checkpointIntervalMs);
  }

  /** How long the job may be down and still recover every open transaction. */
  public long maxDowntimeMs() {
    return transactionTimeoutMs - maxOpenMs(checkpointIntervalMs);
  }

  public AggregateSettings aggregateSettings() {
    return new AggregateSettings(latenessMs, emitIntervalMs, stateRetentionMs);
  }

  /** Parses {@code --key value} pairs; unknown keys and missing values are errors. */
  public static WindowsJobConfig parse(String[] args) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      String key = args[i];
      if (!key.startsWith("--") || !KEYS.contains(key.substring(2))) {
        throw new IllegalArgumentException("unknown program argument '" + key + "'; expected one of --"
            + String.join(", --", KEYS.stream().sorted().toList()));
      }
      if (i + 1 >= args.length) throw new IllegalArgumentException("program argument " + key + " has no value");
      map.put(key.substring(2), args[i + 1]);
    }
    return new WindowsJobConfig(map);
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
