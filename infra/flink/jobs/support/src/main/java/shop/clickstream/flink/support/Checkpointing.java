package shop.clickstream.flink.support;

import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.CheckpointingMode;

/**
 * The jobs' checkpointing and restarts, and what they mean for the Kafka transactions of their two-phase-commit sinks.
 *
 * @param intervalMs how often a checkpoint starts
 * @param timeoutMs how long one may take before it counts as failed
 * @param tolerableFailures failed checkpoints in a row that do not restart the job (e.g. while a broker is down: the
 *     next checkpoint carries the data)
 */
public record Checkpointing(long intervalMs, long timeoutMs, int tolerableFailures) {
  /**
   * Exactly-once checkpoints, one at a time, at most a second apart at the end of one and the start of the next,
   * retained on cancel (so that {@code submit.sh} resumes from the newest after a cancel or a cluster restart), and
   * restarts with an exponential delay from 1 to 10 s. The job adds its state backend.
   */
  public Configuration configuration() {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(intervalMs));
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    conf.set(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS, 1);
    conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ofMillis(Math.min(1_000, intervalMs / 2)));
    conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofMillis(timeoutMs));
    conf.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, tolerableFailures);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF, Duration.ofSeconds(1));
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF, Duration.ofSeconds(10));
    return conf;
  }

  /**
   * The longest a sink's transaction stays open while the job runs: it opens after one checkpoint and commits after
   * the next one that succeeds, which may come after the tolerated failures, each lasting up to the timeout.
   */
  public long maxOpenMs() {
    return (tolerableFailures + 1L) * (timeoutMs + intervalMs);
  }

  /**
   * Fails unless a transaction outlives the failed checkpoints the job tolerates plus a restart within
   * {@code restartBudgetMs}: otherwise the broker aborts it, and the recovered job's commit finds it gone (the connector
   * then logs data loss and drops it).
   */
  public void requireTransactionTimeout(long transactionTimeoutMs, long restartBudgetMs) {
    long needed = maxOpenMs() + restartBudgetMs;
    if (transactionTimeoutMs < needed) {
      throw new IllegalArgumentException("--transaction-timeout-ms='" + transactionTimeoutMs + "': expected at least "
          + needed + " = (tolerable checkpoint failures " + tolerableFailures + " + 1) x (checkpoint timeout "
          + timeoutMs + " + checkpoint-interval-ms " + intervalMs + ") + restart-budget-ms " + restartBudgetMs
          + ", so that a transaction outlives failed checkpoints and a restart");
    }
  }
}
