package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.junit.jupiter.api.Test;

class AggregateEncoderTest {
  private final AggregateEncoder encoder = new AggregateEncoder();

  private static void assertFraming(byte[] bytes, org.apache.avro.Schema schema) {
    assertEquals((byte) 0xC3, bytes[0]);
    assertEquals((byte) 0x01, bytes[1]);
    long fingerprint = ByteBuffer.wrap(bytes, 2, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    assertEquals(SchemaNormalization.parsingFingerprint64(schema), fingerprint);
  }

  @Test
  void windowRowIsSingleObjectEncodedAndRoundTrips() throws Exception {
    WindowRow w = new WindowRow();
    w.runId = "run-1";
    w.windowStart = 1_700_000_000_000L;
    w.windowEnd = w.windowStart + 10_000;
    w.eventType = "page_view";
    w.eventCount = 3;
    w.amountCentsSum = 0;
    w.distinctSessions = 2;
    w.version = 4;
    w.isFinal = true;
    w.emittedAt = 42;
    byte[] bytes = encoder.encode(w);
    assertFraming(bytes, encoder.windowSchema());
    GenericRecord r = new BinaryMessageDecoder<GenericRecord>(GenericData.get(), encoder.windowSchema()).decode(bytes);
    assertEquals("{\"run_id\": \"run-1\", \"window_start\": 1700000000000, \"window_end\": 1700000010000, \"event_type\":"
        + " \"page_view\", \"event_count\": 3, \"amount_cents_sum\": 0, \"distinct_sessions\": 2, \"version\": 4,"
        + " \"is_final\": true, \"emitted_at\": 42}", r.toString());
    assertEquals("run-1|1700000000000|page_view", w.kafkaKey());
  }

  @Test
  void sessionRowIsSingleObjectEncodedAndRoundTrips() throws Exception {
    SessionRow s = new SessionRow();
    s.runId = "run-1";
    s.sessionId = "sess-9";
    s.sessionStart = 100;
    s.sessionEnd = 200;
    s.eventCount = 2;
    s.revenueCents = 999;
    s.converted = true;
    s.version = 2;
    s.isFinal = true;
    s.retracted = true;
    s.emittedAt = 7;
    byte[] bytes = encoder.encode(s);
    assertFraming(bytes, encoder.sessionSchema());
    GenericRecord r = new BinaryMessageDecoder<GenericRecord>(GenericData.get(), encoder.sessionSchema()).decode(bytes);
    assertEquals("{\"run_id\": \"run-1\", \"session_id\": \"sess-9\", \"session_start\": 100, \"session_end\": 200,"
        + " \"event_count\": 2, \"revenue_cents\": 999, \"converted\": true, \"version\": 2, \"is_final\": true,"
        + " \"retracted\": true, \"emitted_at\": 7}", r.toString());
    assertEquals("run-1|sess-9|100", s.kafkaKey());
  }

  private static String wireFingerprint(byte[] bytes) {
    StringBuilder hex = new StringBuilder();
    for (int i = 2; i < 10; i++) hex.append(String.format("%02x", bytes[i] & 0xff));
    return hex.toString();
  }

  @Test
  void fingerprintsOnTheWireAreTheOnesPinnedByTheTypeScriptContract() {
    // libs/contracts/src/aggregate/wire.spec.ts pins the same bytes: both halves of #12 decode each other's rows.
    assertEquals("f5c4179062d1f726", wireFingerprint(encoder.encode(new WindowRow() {{ runId = "r"; eventType = "page_view"; }})));
    assertEquals("0c048208d186cbd3", wireFingerprint(encoder.encode(new SessionRow() {{ runId = "r"; sessionId = "s"; }})));
  }

  @Test
  void fieldOrderIsTheContracts() {
    assertEquals("[run_id, window_start, window_end, event_type, event_count, amount_cents_sum, distinct_sessions, version,"
        + " is_final, emitted_at]", encoder.windowSchema().getFields().stream().map(f -> f.name()).toList().toString());
    assertEquals("[run_id, session_id, session_start, session_end, event_count, revenue_cents, converted, version,"
        + " is_final, retracted, emitted_at]", encoder.sessionSchema().getFields().stream().map(f -> f.name()).toList().toString());
  }
}
