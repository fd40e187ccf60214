package shop.clickstream.flink.windows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/** The Kafka record serializers of the three outputs. */
public final class Serializers {
  private Serializers() {}

  /** agg.windows: key {@code <run_id>|<window_start>|<event_type>}, Avro single-object value; partition by key hash. */
  public static final class Windows implements KafkaRecordSerializationSchema<WindowRow> {
    private static final long serialVersionUID = 1L;
    private final String topic;
    private transient AggregateEncoder encoder;

    public Windows(String topic) {
      this.topic = topic;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
      encoder = new AggregateEncoder();
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(WindowRow w, KafkaSinkContext context, Long timestamp) {
      if (encoder == null) encoder = new AggregateEncoder();
      return new ProducerRecord<>(topic, null, w.emittedAt, w.kafkaKey().getBytes(StandardCharsets.UTF_8), encoder.encode(w));
    }
  }

  /** agg.sessions: key {@code <run_id>|<session_id>|<session_start>}, Avro single-object value. */
  public static final class Sessions implements KafkaRecordSerializationSchema<SessionRow> {
    private static final long serialVersionUID = 1L;
    private final String topic;
    private transient AggregateEncoder encoder;

    public Sessions(String topic) {
      this.topic = topic;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
      encoder = new AggregateEncoder();
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(SessionRow s, KafkaSinkContext context, Long timestamp) {
      if (encoder == null) encoder = new AggregateEncoder();
      return new ProducerRecord<>(topic, null, s.emittedAt, s.kafkaKey().getBytes(StandardCharsets.UTF_8), encoder.encode(s));
    }
  }

  /**
   * events.late: the events.clean record unchanged (key, value bytes, headers, timestamp), on the source partition
   * modulo the target's partition count, as the clean job does.
   */
  public static final class Late implements KafkaRecordSerializationSchema<CleanEvent> {
    private static final long serialVersionUID = 1L;
    private final String topic;

    public Late(String topic) {
      this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(CleanEvent e, KafkaSinkContext context, Long timestamp) {
      int[] partitions = context.getPartitionsForTopic(topic);
      Integer partition = partitions.length == 0 ? null : partitions[e.partition % partitions.length];
      List<Header> headers = new ArrayList<>(e.headerKeys.length);
      for (int i = 0; i < e.headerKeys.length; i++) headers.add(new RecordHeader(e.headerKeys[i], e.headerValues[i]));
      return new ProducerRecord<>(topic, partition, e.timestamp, e.key, e.value, headers);
    }
  }
}
