package shop.clickstream.flink.windows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;

/**
 * Decodes Avro single-object encoding (C3 01, CRC-64-AVRO fingerprint, body) of the canonical v2 event schema, copied
 * from libs/contracts at build time. Not thread-safe: one instance per task.
 */
public final class EventDecoder {
  public static final String SCHEMA_RESOURCE = "/schemas/clickstream-event-v2.avsc";

  private final BinaryMessageDecoder<GenericRecord> decoder;
  /** Decoded into again for every event (Avro reuses its fields); every value is copied out before the next one. */
  private GenericRecord reuse;

  public EventDecoder() {
    this.decoder = new BinaryMessageDecoder<>(GenericData.get(), Schemas.load(SCHEMA_RESOURCE));
  }

  /** Fills {@code out}'s decoded fields from {@code value}; throws on bytes that are not a v2 event. */
  public void decodeInto(byte[] value, long recordTimestamp, CleanEvent out) throws IOException {
    GenericRecord e = decoder.decode(value, reuse);
    reuse = e;
    out.eventId = str(e.get("event_id"));
    out.seq = (Long) e.get("seq");
    out.runId = str(e.get("run_id"));
    out.eventType = str(e.get("event_type"));
    out.eventTime = (Long) e.get("event_time");
    out.sessionId = str(e.get("session_id"));
    out.amountCents = (Long) e.get("amount_cents");
    Long ingest = (Long) e.get("ingest_time");
    // The gatekeeper always stamps ingest_time; the record timestamp carries the same value and is the fallback.
    out.ingestTime = ingest != null ? ingest : recordTimestamp;
  }

  private static String str(Object o) {
    return o == null ? null : o.toString();
  }

  /** Loads .avsc resources bundled into the jar. */
  public static final class Schemas {
    private Schemas() {}

    public static Schema load(String resource) {
      try (InputStream in = EventDecoder.class.getResourceAsStream(resource)) {
        if (in == null) throw new IllegalStateException("schema resource " + resource + " missing from the job jar");
        return new Schema.Parser().parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new IllegalStateException("cannot read " + resource, e);
      }
    }
  }
}
