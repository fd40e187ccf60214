package shop.clickstream.flink.clean;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Writes a deduplicated record to events.clean exactly as it was on events.valid: same key, value bytes, headers
 * (cs-seq, cs-run-id) and timestamp (the ingest time). The partition is the source partition (modulo the target's
 * partition count), so per-session order carries over and does not depend on the Java client's key hash.
 */
public final class CleanRecordSerializer implements KafkaRecordSerializationSchema<ValidRecord> {
  private static final long serialVersionUID = 1L;

  private final String topic;

  public CleanRecordSerializer(String topic) {
    this.topic = topic;
  }

  @Override
  public ProducerRecord<byte[], byte[]> serialize(ValidRecord r, KafkaSinkContext context, Long timestamp) {
    int[] partitions = context.getPartitionsForTopic(topic);
    Integer partition = partitions.length == 0 ? null : partitions[r.partition % partitions.length];
    List<Header> headers = new ArrayList<>(r.headerKeys.length);
    for (int i = 0; i < r.headerKeys.length; i++) headers.add(new RecordHeader(r.headerKeys[i], r.headerValues[i]));
    return new ProducerRecord<>(topic, partition, r.timestamp, r.key, r.value, headers);
  }
}
