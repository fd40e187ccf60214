package shop.clickstream.flink.windows;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;

/**
 * Avro single-object encoding (C3 01, CRC-64-AVRO fingerprint little-endian, binary body) of the aggregate rows, with
 * the schemas of libs/contracts/src/aggregate/schemas copied into the jar at build time. Not thread-safe: one per task.
 */
public final class AggregateEncoder {
  public static final String WINDOW_SCHEMA_RESOURCE = "/schemas/window-aggregate-v1.avsc";
  public static final String SESSION_SCHEMA_RESOURCE = "/schemas/session-aggregate-v1.avsc";

  private final Schema windowSchema = EventDecoder.Schemas.load(WINDOW_SCHEMA_RESOURCE);
  private final Schema sessionSchema = EventDecoder.Schemas.load(SESSION_SCHEMA_RESOURCE);
  private final BinaryMessageEncoder<GenericRecord> windows = new BinaryMessageEncoder<>(GenericData.get(), windowSchema);
  private final BinaryMessageEncoder<GenericRecord> sessions = new BinaryMessageEncoder<>(GenericData.get(), sessionSchema);

  public Schema windowSchema() {
    return windowSchema;
  }

  public Schema sessionSchema() {
    return sessionSchema;
  }

  public byte[] encode(WindowRow w) {
    GenericRecord r = new GenericData.Record(windowSchema);
    r.put("run_id", w.runId);
    r.put("window_start", w.windowStart);
    r.put("window_end", w.windowEnd);
    r.put("event_type", w.eventType);
    r.put("event_count", w.eventCount);
    r.put("amount_cents_sum", w.amountCentsSum);
    r.put("distinct_sessions", w.distinctSessions);
    r.put("version", w.version);
    r.put("is_final", w.isFinal);
    r.put("emitted_at", w.emittedAt);
    return bytes(windows, r);
  }

  public byte[] encode(SessionRow s) {
    GenericRecord r = new GenericData.Record(sessionSchema);
    r.put("run_id", s.runId);
    r.put("session_id", s.sessionId);
    r.put("session_start", s.sessionStart);
    r.put("session_end", s.sessionEnd);
    r.put("event_count", s.eventCount);
    r.put("revenue_cents", s.revenueCents);
    r.put("converted", s.converted);
    r.put("version", s.version);
    r.put("is_final", s.isFinal);
    r.put("retracted", s.retracted);
    r.put("emitted_at", s.emittedAt);
    return bytes(sessions, r);
  }

  private static byte[] bytes(BinaryMessageEncoder<GenericRecord> encoder, GenericRecord r) {
    try {
      ByteBuffer b = encoder.encode(r);
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
