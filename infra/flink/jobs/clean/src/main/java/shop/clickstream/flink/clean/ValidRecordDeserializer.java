package shop.clickstream.flink.clean;

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
 * Turns an events.valid Kafka record into a {@link ValidRecord}, keeping the original bytes. A record that does not
 * decode is counted ({@code undecodable_records}) and dropped: the gatekeeper should make that impossible, a restart
 * loop on it would stall the pipeline, and the reconciler reports the event as missing from the clean layer.
 */
public final class ValidRecordDeserializer implements KafkaRecordDeserializationSchema<ValidRecord> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ValidRecordDeserializer.class);

  private transient EventDecoder decoder;
  private transient Counter undecodable;

  @Override
  public void open(DeserializationSchema.InitializationContext context) {
    decoder = new EventDecoder();
    undecodable = context.getMetricGroup().counter("undecodable_records");
  }

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<ValidRecord> out) {
    EventDecoder.Decoded d = decoder.decode(record.value());
    if (d.error() != null) {
      undecodable.inc();
      Header seq = record.headers().lastHeader("cs-seq");
      LOG.warn("undecodable record dropped topic={} partition={} offset={} seq={} error={}", record.topic(),
          record.partition(), record.offset(), seq == null ? null : new String(seq.value(), StandardCharsets.UTF_8), d.error());
      return;
    }
    ValidRecord r = new ValidRecord();
    r.key = record.key();
    r.value = record.value();
    Header[] headers = record.headers().toArray();
    r.headerKeys = new String[headers.length];
    r.headerValues = new byte[headers.length][];
    for (int i = 0; i < headers.length; i++) {
      r.headerKeys[i] = headers[i].key();
      r.headerValues[i] = headers[i].value();
    }
    r.partition = record.partition();
    r.offset = record.offset();
    r.timestamp = record.timestamp();
    EventDecoder.fill(d.event(), r);
    out.collect(r);
  }

  @Override
  public TypeInformation<ValidRecord> getProducedType() {
    return TypeInformation.of(ValidRecord.class);
  }
}
