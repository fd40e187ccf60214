package shop.clickstream.flink.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.junit.jupiter.api.Test;

class CheckpointingTest {
  @Test
  void configuresExactlyOnceRetainedCheckpointsAndExponentialRestarts() {
    Configuration conf = new Checkpointing(1_000, 120_000, 5).configuration();
    assertEquals(Duration.ofSeconds(1), conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL));
    assertEquals(CheckpointingMode.EXACTLY_ONCE, conf.get(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE));
    assertEquals(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION,
        conf.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION));
    assertEquals(1, conf.get(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS));
    assertEquals(Duration.ofMillis(500), conf.get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS));
    assertEquals(Duration.ofMinutes(2), conf.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT));
    assertEquals(5, conf.get(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER));
    assertEquals("exponential-delay", conf.get(RestartStrategyOptions.RESTART_STRATEGY));
    assertEquals(Duration.ofSeconds(10), conf.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF));
    // The pause between checkpoints is at most a second, whatever the interval.
    assertEquals(Duration.ofSeconds(1),
        new Checkpointing(5_000, 60_000, 5).configuration().get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS));
  }

  @Test
  void aTransactionMustOutliveTheToleratedFailuresAndARestart() {
    Checkpointing c = new Checkpointing(1_000, 120_000, 5);
    // Six checkpoints in a row may each take the timeout: 6 x 121 s.
    assertEquals(726_000, c.maxOpenMs());
    c.requireTransactionTimeout(1_326_000, 600_000);
    String e = assertThrows(IllegalArgumentException.class, () -> c.requireTransactionTimeout(1_325_999, 600_000))
        .getMessage();
    assertTrue(e.startsWith("--transaction-timeout-ms='1325999': expected at least 1326000 = (tolerable checkpoint"
        + " failures 5 + 1) x (checkpoint timeout 120000 + checkpoint-interval-ms 1000) + restart-budget-ms 600000"), e);
  }
}
