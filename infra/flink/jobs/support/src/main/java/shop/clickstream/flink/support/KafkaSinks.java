package shop.clickstream.flink.support;

import java.util.List;
import java.util.Properties;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;

/** The jobs' Kafka sink. */
public final class KafkaSinks {
  /** The values of a job's {@code --sink-compression}: the producer's {@code compression.type}. */
  public static final List<String> COMPRESSION = List.of("none", "lz4", "zstd", "snappy", "gzip");
  /**
   * lz4, as the gatekeeper and the generator write (libs/kafka-tx). At 2,000 events/s it cut the bytes the brokers took
   * in by 37 % and sent out by 23-38 %, and their CPU by 0.02-0.05 cores where the clean job kept up, for 0.015-0.02
   * cores in the clean job's task thread (docs/MEASUREMENTS.md, "The Flink sinks' compression").
   */
  public static final String DEFAULT_COMPRESSION = "lz4";
  /**
   * The sinks' linger.ms unless a job's {@code --sink-linger-ms} says otherwise. Nothing a sink writes is visible
   * before the checkpoint commits its transaction, but the checkpoint first sends whatever is buffered and waits for
   * every replica's ack. A linger as long as the clean job's checkpoint (1 s) cut a quarter of the produce requests,
   * did not make the brokers cheaper, and took clean freshness p99 from 3.0 to 5.8-8.8 s at 3,000 events/s
   * (docs/KAFKA.md, "Producers' linger"); at 50 ms the checkpoint has only the last 50 ms to send.
   */
  public static final long DEFAULT_LINGER_MS = 50;
  /** The most {@code --sink-linger-ms} takes: below the producer's delivery.timeout.ms less its request.timeout.ms. */
  public static final long MAX_LINGER_MS = 60_000;
  /** batch.size: room for a long linger's records, where Kafka's 16 KB would send a batch every few hundred records. */
  public static final int BATCH_BYTES = 262_144;

  private KafkaSinks() {}

  /**
   * An exactly-once sink: a Kafka transaction per checkpoint, committed when the checkpoint completes.
   * {@code transactionalIdPrefix} must be unique per sink and stable across restarts (a restarted job aborts the
   * transactions its predecessor left open); {@code transactionTimeoutMs} must outlive the checkpoints between opening
   * and commit ({@link Checkpointing#requireTransactionTimeout}).
   */
  public static <T> KafkaSink<T> exactlyOnce(String bootstrap, KafkaRecordSerializationSchema<T> serializer,
      String transactionalIdPrefix, long transactionTimeoutMs, String compression, long lingerMs) {
    return KafkaSink.<T>builder()
        .setBootstrapServers(bootstrap)
        .setRecordSerializer(serializer)
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(transactionalIdPrefix)
        .setKafkaProducerConfig(producerProperties(transactionTimeoutMs, compression, lingerMs))
        .build();
  }

  /** The sink's producer settings besides the bootstrap servers and the transactional ids. */
  public static Properties producerProperties(long transactionTimeoutMs, String compression, long lingerMs) {
    if (!COMPRESSION.contains(compression)) {
      throw new IllegalArgumentException("sink compression '" + compression + "': expected one of " + COMPRESSION);
    }
    if (lingerMs < 0 || lingerMs > MAX_LINGER_MS) {
      throw new IllegalArgumentException("sink linger " + lingerMs + " ms: expected 0 to " + MAX_LINGER_MS);
    }
    Properties p = new Properties();
    p.setProperty("transaction.timeout.ms", Long.toString(transactionTimeoutMs));
    p.setProperty("linger.ms", Long.toString(lingerMs));
    p.setProperty("batch.size", Integer.toString(BATCH_BYTES));
    p.setProperty("acks", "all");
    p.setProperty("compression.type", compression);
    return p;
  }
}
