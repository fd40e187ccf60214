package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

/** One decoder decodes event after event into the same Avro record: nothing of one event may stay in the next. */
class EventDecoderTest {
  private static final Schema SCHEMA = EventDecoder.Schemas.load(EventDecoder.SCHEMA_RESOURCE);
  private static final BinaryMessageEncoder<GenericRecord> ENCODER = new BinaryMessageEncoder<>(GenericData.get(), SCHEMA);

  static byte[] event(String id, String session, String type, Long amount, Long ingest) throws Exception {
    GenericRecord r = new GenericRecordBuilder(SCHEMA)
        .set("event_id", id)
        .set("seq", 7L)
        .set("run_id", "run-1")
        .set("event_type", new GenericData.EnumSymbol(SCHEMA.getField("event_type").schema(), type))
        .set("event_time", 1_000L)
        .set("session_id", session)
        .set("user_id", null)
        .set("page", "/p")
        .set("product_id", null)
        .set("quantity", null)
        .set("amount_cents", amount)
        .set("currency", amount == null ? null : "EUR")
        .set("device", null)
        .set("ingest_time", ingest)
        .build();
    return ENCODER.encode(r).array();
  }

  @Test
  void consecutiveEventsDoNotLeakIntoEachOther() throws Exception {
    EventDecoder d = new EventDecoder();
    CleanEvent a = new CleanEvent();
    d.decodeInto(event("00000000-0000-4000-8000-000000000001", "sess-long-one", "payment_succeeded", 1_234L, 5_000L), 9L, a);
    CleanEvent b = new CleanEvent();
    d.decodeInto(event("00000000-0000-4000-8000-000000000002", "s2", "page_view", null, null), 9L, b);
    assertEquals("sess-long-one", a.sessionId);
    assertEquals("payment_succeeded", a.eventType);
    assertEquals(1_234L, a.amountCents);
    assertEquals(5_000L, a.ingestTime);
    assertEquals("00000000-0000-4000-8000-000000000002", b.eventId);
    assertEquals("s2", b.sessionId);
    assertEquals("page_view", b.eventType);
    assertNull(b.amountCents);
    assertEquals(9L, b.ingestTime, "no ingest_time: the record timestamp");
  }

  @Test
  void bytesThatAreNotAnEventAreRejectedAndTheNextEventStillDecodes() throws Exception {
    EventDecoder d = new EventDecoder();
    assertThrows(Exception.class, () -> d.decodeInto(new byte[] {(byte) 0xC3, 1, 0, 0}, 0L, new CleanEvent()));
    CleanEvent e = new CleanEvent();
    d.decodeInto(event("00000000-0000-4000-8000-000000000003", "s3", "add_to_cart", null, 42L), 0L, e);
    assertEquals("s3", e.sessionId);
    assertEquals(42L, e.ingestTime);
  }
}
