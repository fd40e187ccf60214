package shop.clickstream.flink.support;

import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/** The jobs' Kafka source. */
public final class KafkaSources {
  /** The values of a job's {@code --starting-offsets}. */
  public static final java.util.List<String> STARTING_OFFSETS = java.util.List.of("committed", "earliest", "latest");

  private KafkaSources() {}

  /**
   * Reads {@code topic} read_committed (its writer is transactional: never what it aborted or has not committed yet),
   * from {@code startingOffsets} ("committed" falls back to the earliest offset for a new group); a restored job reads
   * from its checkpoint's offsets whatever this says. Partitions are discovered once a minute.
   */
  public static <T> KafkaSource<T> readCommitted(String bootstrap, String topic, String groupId, String startingOffsets,
      String clientIdPrefix, KafkaRecordDeserializationSchema<T> deserializer) {
    OffsetsInitializer start = switch (startingOffsets) {
      case "earliest" -> OffsetsInitializer.earliest();
      case "latest" -> OffsetsInitializer.latest();
      case "committed" -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
      default -> throw new IllegalArgumentException("starting offsets '" + startingOffsets + "': expected one of "
          + STARTING_OFFSETS);
    };
    return KafkaSource.<T>builder()
        .setBootstrapServers(bootstrap)
        .setTopics(topic)
        .setGroupId(groupId)
        .setStartingOffsets(start)
        .setDeserializer(deserializer)
        .setProperty("isolation.level", "read_committed")
        .setProperty("client.id.prefix", clientIdPrefix)
        .setProperty("partition.discovery.interval.ms", "60000")
        .build();
  }
}
