package shop.clickstream.flink.clean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Program-argument parsing: defaults, overrides, and errors that name the key, the value and what was expected. */
class CleanJobConfigTest {
  @Test
  void defaults() {
    CleanJobConfig c = CleanJobConfig.parse(new String[0]);
    assertEquals("events.valid", c.validTopic);
    assertEquals("events.clean", c.cleanTopic);
    assertEquals(5_000, c.checkpointIntervalMs);
    assertEquals(3_600_000, c.dedupTtlMs);
    assertEquals(2, c.parallelism);
    assertEquals(600_000, c.transactionTimeoutMs);
    assertEquals("flink-clean-events.clean", c.transactionalIdPrefix);
  }

  @Test
  void overrides() {
    CleanJobConfig c = CleanJobConfig.parse(new String[] {"--clean-topic", "c1", "--parallelism", "1", "--job-name", "t"});
    assertEquals("c1", c.cleanTopic);
    assertEquals(1, c.parallelism);
    assertEquals("flink-t-c1", c.transactionalIdPrefix);
  }

  @Test
  void errorsNameKeyValueAndExpectation() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CleanJobConfig.parse(new String[] {"--transaction-timeout-ms", "1000000"}));
    assertTrue(e.getMessage().contains("--transaction-timeout-ms='1000000'"), e.getMessage());
    assertTrue(e.getMessage().contains("[60000, 900000]"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> CleanJobConfig.parse(new String[] {"--nope", "1"}));
    assertThrows(IllegalArgumentException.class, () -> CleanJobConfig.parse(new String[] {"--parquet-codec", "lz4"}));
    assertThrows(IllegalArgumentException.class, () -> CleanJobConfig.parse(new String[] {"--parallelism"}));
  }
}
