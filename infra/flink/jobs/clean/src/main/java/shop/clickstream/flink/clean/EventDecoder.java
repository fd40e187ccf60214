package shop.clickstream.flink.clean;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;

/**
 * Decodes Avro single-object encoding (C3 01, CRC-64-AVRO fingerprint, binary body) of the canonical v2 event schema,
 * which is copied from libs/contracts at build time. Not thread-safe: one instance per task.
 */
public final class EventDecoder {
  /** Classpath location of the schema (see the resources section of the pom). */
  public static final String SCHEMA_RESOURCE = "/schemas/clickstream-event-v2.avsc";

  /** The outcome of decoding one value: exactly one of {@code event} and {@code error} is set. */
  public record Decoded(GenericRecord event, String error) {}

  private final BinaryMessageDecoder<GenericRecord> decoder;

  public EventDecoder() {
    // Unknown fingerprints and bad headers are rejected by the decoder itself (no SchemaStore resolution).
    this.decoder = new BinaryMessageDecoder<>(GenericData.get(), loadSchema());
  }

  public static Schema loadSchema() {
    try (InputStream in = EventDecoder.class.getResourceAsStream(SCHEMA_RESOURCE)) {
      if (in == null) throw new IllegalStateException("schema resource " + SCHEMA_RESOURCE + " missing from the job jar");
      return new Schema.Parser().parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + SCHEMA_RESOURCE, e);
    }
  }

  public Decoded decode(byte[] value) {
    if (value == null) return new Decoded(null, "null value");
    try {
      return new Decoded(decoder.decode(value), null);
    } catch (IOException | RuntimeException e) {
      return new Decoded(null, e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  /** Copies the decoded fields into {@code out}; Avro strings arrive as Utf8, enums as symbols, times as epoch ms. */
  public static void fill(GenericRecord e, ValidRecord out) {
    out.eventId = str(e.get("event_id"));
    out.seq = (Long) e.get("seq");
    out.runId = str(e.get("run_id"));
    out.eventType = str(e.get("event_type"));
    out.eventTime = (Long) e.get("event_time");
    out.sessionId = str(e.get("session_id"));
    out.userId = str(e.get("user_id"));
    out.page = str(e.get("page"));
    out.productId = str(e.get("product_id"));
    out.quantity = (Integer) e.get("quantity");
    out.amountCents = (Long) e.get("amount_cents");
    out.currency = str(e.get("currency"));
    out.device = str(e.get("device"));
    out.ingestTime = (Long) e.get("ingest_time");
  }

  private static String str(Object o) {
    return o == null ? null : o.toString();
  }
}
