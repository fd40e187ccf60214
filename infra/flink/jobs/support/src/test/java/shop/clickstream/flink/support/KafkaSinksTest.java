package shop.clickstream.flink.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class KafkaSinksTest {
  @Test
  void theProducerGetsTheCompressionTheTimeoutAndFullBatches() {
    Properties p = KafkaSinks.producerProperties(3_600_000, "lz4");
    assertEquals("lz4", p.getProperty("compression.type"));
    assertEquals("3600000", p.getProperty("transaction.timeout.ms"));
    assertEquals("50", p.getProperty("linger.ms"));
    assertEquals("all", p.getProperty("acks"));
  }

  @Test
  void refusesACompressionKafkaDoesNotHave() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> KafkaSinks.producerProperties(60_000, "lzo"));
    assertEquals("sink compression 'lzo': expected one of [none, lz4, zstd, snappy, gzip]", e.getMessage());
  }
}
