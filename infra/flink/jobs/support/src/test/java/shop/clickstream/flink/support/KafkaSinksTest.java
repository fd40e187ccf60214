package shop.clickstream.flink.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class KafkaSinksTest {
  @Test
  void theProducerGetsTheCompressionTheTimeoutAndFullBatches() {
    Properties p = KafkaSinks.producerProperties(3_600_000, "lz4", 250);
    assertEquals("lz4", p.getProperty("compression.type"));
    assertEquals("3600000", p.getProperty("transaction.timeout.ms"));
    assertEquals("250", p.getProperty("linger.ms"));
    assertEquals("262144", p.getProperty("batch.size"));
    assertEquals("all", p.getProperty("acks"));
  }

  @Test
  void refusesALingerOutsideItsRange() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> KafkaSinks.producerProperties(60_000, "lz4", 60_001));
    assertEquals("sink linger 60001 ms: expected 0 to 60000", e.getMessage());
    assertEquals("0", KafkaSinks.producerProperties(60_000, "lz4", 0).getProperty("linger.ms"));
  }

  @Test
  void refusesACompressionKafkaDoesNotHave() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> KafkaSinks.producerProperties(60_000, "lzo", 50));
    assertEquals("sink compression 'lzo': expected one of [none, lz4, zstd, snappy, gzip]", e.getMessage());
  }
}
