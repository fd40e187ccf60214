package shop.clickstream.flink.windows;

import java.io.Serializable;
import java.util.List;
import java.util.Set;
import shop.clickstream.flink.support.Checkpointing;
import shop.clickstream.flink.support.KafkaSinks;
import shop.clickstream.flink.support.KafkaSources;
import shop.clickstream.flink.support.ProgramArgs;

/** The windows job's configuration, parsed once from program args ({@code --key value}); a bad value names key, value and what was expected. */
public final class WindowsJobConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Set<String> KEYS = Set.of(
      "job-name", "bootstrap", "clean-topic", "windows-topic", "sessions-topic", "late-topic", "group-id",
      "transactional-id-prefix", "starting-offsets", "checkpoint-interval-ms", "checkpoint-dir", "parallelism",
      "state-backend", "transaction-timeout-ms", "restart-budget-ms", "lateness-ms", "out-of-orderness-ms", "idleness-ms",
      "interim-rows", "emit-interval-ms", "state-retention-ms", "changelog", "sink-compression",
      "sink-linger-ms");

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
  /** The Kafka sinks' compression.type: {@link KafkaSinks#DEFAULT_COMPRESSION} unless given. */
  public final String sinkCompression;
  /** The Kafka sinks' linger.ms: {@link KafkaSinks#DEFAULT_LINGER_MS} unless given. */
  public final long sinkLingerMs;
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
  /**
   * {@code checkpoint}: a changed key's interim row is emitted right before each checkpoint barrier, once per
   * checkpoint ({@link InterimAtCheckpointOperator}); {@code tick}: at most once per {@link #emitIntervalMs} of
   * processing time, the job's behaviour until 2026-12-07 (docs/FLINK.md, "Interim rows").
   */
  public final String interimRows;
  public static final List<String> INTERIM_ROWS = List.of("checkpoint", "tick");
  public final long emitIntervalMs;
  public final long stateRetentionMs;

  private WindowsJobConfig(ProgramArgs a) {
    jobName = a.text("job-name", "windows");
    bootstrap = a.text("bootstrap", "127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092");
    cleanTopic = a.text("clean-topic", "events.clean");
    windowsTopic = a.text("windows-topic", "agg.windows");
    sessionsTopic = a.text("sessions-topic", "agg.sessions");
    lateTopic = a.text("late-topic", "events.late");
    groupId = a.text("group-id", "flink-" + jobName);
    // Deterministic (not random) so that a restarted job aborts the transactions its predecessor left open.
    transactionalIdPrefix = a.text("transactional-id-prefix", "flink-" + jobName);
    startingOffsets = a.oneOf("starting-offsets", "committed", KafkaSources.STARTING_OFFSETS);
    // 10 s, not 5: each checkpoint copies the whole heap state and emits the interim rows (docs/FLINK.md, "Checkpoint
    // interval").
    checkpointIntervalMs = a.number("checkpoint-interval-ms", 10_000, 100, 600_000);
    checkpointDir = a.optional("checkpoint-dir");
    parallelism = (int) a.number("parallelism", 1, 1, 64);
    stateBackend = a.oneOf("state-backend", DEFAULT_STATE_BACKEND, List.of("hashmap", "rocksdb"));
    changelog = a.onOff("changelog", "off");
    sinkCompression = a.oneOf("sink-compression", KafkaSinks.DEFAULT_COMPRESSION, KafkaSinks.COMPRESSION);
    sinkLingerMs = a.number("sink-linger-ms", KafkaSinks.DEFAULT_LINGER_MS, 0, KafkaSinks.MAX_LINGER_MS);
    // 900000 is what brokers started before the 1 h setting (infra/local/kafka) allow; up to 3600000 after.
    transactionTimeoutMs = a.number("transaction-timeout-ms", 3_600_000, 60_000, 3_600_000);
    restartBudgetMs = a.number("restart-budget-ms", 600_000, 0, 3_600_000);
    latenessMs = a.number("lateness-ms", 5_000, 0, 3_600_000);
    outOfOrdernessMs = a.number("out-of-orderness-ms", 3_000, 0, 600_000);
    // Longer than a partition leader's failover after a broker kill (about 10 s): a partition that only waits for
    // its new leader must keep holding the watermark back, or its events arrive behind it (correct, but corrections
    // after is_final). The cost: after traffic stops, the last rows become final up to 30 s later.
    idlenessMs = a.number("idleness-ms", 30_000, 100, 3_600_000);
    interimRows = a.oneOf("interim-rows", "checkpoint", INTERIM_ROWS);
    if (interimRows.equals("checkpoint") && a.optional("emit-interval-ms") != null) {
      throw new IllegalArgumentException(
          "--emit-interval-ms is the emit tick's interval and needs --interim-rows tick (interim rows are now emitted"
              + " at each checkpoint barrier)");
    }
    emitIntervalMs = a.number("emit-interval-ms", 1_000, 1, 600_000);
    // 15 minutes: 5 copied a third of the state at each checkpoint, but lost state that the integration tests' reads
    // far behind the watermark still needed (docs/FLINK.md, "State lifetime").
    stateRetentionMs = a.number("state-retention-ms", 900_000, 1, 7L * 24 * 3_600_000);
    // A transaction must outlive the failed checkpoints the job tolerates plus a restart, or the broker aborts it and
    // the recovered job's commit finds it gone (the connector logs data loss and drops it).
    checkpointing().requireTransactionTimeout(transactionTimeoutMs, restartBudgetMs);
  }

  /** The job's checkpoints: every {@link #checkpointIntervalMs}, {@link #CHECKPOINT_TIMEOUT_MS}, {@link #TOLERABLE_CHECKPOINT_FAILURES}. */
  public Checkpointing checkpointing() {
    return new Checkpointing(checkpointIntervalMs, CHECKPOINT_TIMEOUT_MS, TOLERABLE_CHECKPOINT_FAILURES);
  }

  /** How long the job may be down and still recover every open transaction. */
  public long maxDowntimeMs() {
    return transactionTimeoutMs - checkpointing().maxOpenMs();
  }

  public AggregateSettings aggregateSettings() {
    return new AggregateSettings(latenessMs, interimRows.equals("checkpoint"), emitIntervalMs, stateRetentionMs);
  }

  /** Parses {@code --key value} pairs; unknown keys and missing values are errors. */
  public static WindowsJobConfig parse(String[] args) {
    return new WindowsJobConfig(ProgramArgs.parse(args, KEYS));
  }
}
