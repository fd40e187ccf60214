package shop.clickstream.flink.windows;

import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * events.clean Kafka record -> {@link CleanEvent}, keeping the original bytes. A value that does not decode (the
 * gatekeeper and the clean job make that impossible) is counted ({@code undecodable_records}), logged and dropped:
 * a restart loop on it would stall every aggregate, and the reconciler reports the event as missing.
 */
public final class CleanEventDeserializer implements KafkaRecordDeserializationSchema<CleanEvent> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CleanEventDeserializer.class);

  private transient EventDecoder decoder;
  private transient Counter undecodable;

  @Override
  public void open(DeserializationSchema.InitializationContext context) {
    decoder = new EventDecoder();
    undecodable = context.getMetricGroup().counter("undecodable_records");
  }

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<CleanEvent> out) {
    CleanEvent e = new CleanEvent();
    try {
      if (record.value() == null) throw new IllegalArgumentException("null value");
      decoder.decodeInto(record.value(), record.timestamp(), e);
    } catch (Exception ex) {
      undecodable.inc();
      Header seq = record.headers().lastHeader("cs-seq");
      LOG.warn("undecodable record dropped topic={} partition={} offset={} seq={} error={}", record.topic(),
          record.partition(), record.offset(), seq == null ? null : new String(seq.value(), StandardCharsets.UTF_8),
          ex.toString());
      return;
    }
    e.key = record.key();
    e.value = record.value();
    Header[] headers = record.headers().toArray();
    e.headerKeys = new String[headers.length];
    e.headerValues = new byte[headers.length][];
    for (int i = 0; i < headers.length; i++) {
      e.headerKeys[i] = headers[i].key();
      e.headerValues[i] = headers[i].value();
    }
    e.partition = record.partition();
    e.timestamp = record.timestamp();
    out.collect(e);
  }

  @Override
  public TypeInformation<CleanEvent> getProducedType() {
    return TypeInformation.of(CleanEvent.class);
  }
}
