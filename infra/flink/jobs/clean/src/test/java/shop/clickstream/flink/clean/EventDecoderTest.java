package shop.clickstream.flink.clean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

/** Decoding of single-object-encoded v2 events, including the header and fingerprint checks. */
class EventDecoderTest {
  private static final Schema SCHEMA = EventDecoder.loadSchema();

  private static GenericRecord event() {
    GenericRecord e = new GenericData.Record(SCHEMA);
    e.put("event_id", "0b9f6f2c-4a51-4b1e-9a55-3c1d2b7e8f90");
    e.put("seq", 42L);
    e.put("run_id", "run-1");
    e.put("event_type", new GenericData.EnumSymbol(SCHEMA.getField("event_type").schema(), "add_to_cart"));
    e.put("event_time", 1_700_000_000_123L);
    e.put("session_id", "s-1");
    e.put("product_id", "p-9");
    e.put("quantity", 2);
    e.put("amount_cents", 1999L);
    e.put("currency", "EUR");
    Schema device = SCHEMA.getField("device").schema().getTypes().get(1);
    e.put("device", new GenericData.EnumSymbol(device, "mobile"));
    e.put("ingest_time", 1_700_000_000_456L);
    return e;
  }

  @Test
  void decodesEveryField() throws Exception {
    byte[] bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), SCHEMA).encode(event()).array();
    EventDecoder.Decoded d = new EventDecoder().decode(bytes);
    assertNull(d.error());
    ValidRecord r = new ValidRecord();
    EventDecoder.fill(d.event(), r);
    assertEquals("0b9f6f2c-4a51-4b1e-9a55-3c1d2b7e8f90", r.eventId);
    assertEquals(42L, r.seq);
    assertEquals("add_to_cart", r.eventType);
    assertEquals(1_700_000_000_123L, r.eventTime);
    assertNull(r.userId);
    assertNull(r.page);
    assertEquals(2, r.quantity);
    assertEquals(1999L, r.amountCents);
    assertEquals("mobile", r.device);
    assertEquals(1_700_000_000_456L, r.ingestTime);
  }

  @Test
  void headerCarriesTheContractFingerprint() throws Exception {
    ByteBuffer bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), SCHEMA).encode(event());
    assertEquals((byte) 0xC3, bytes.get(0));
    assertEquals((byte) 0x01, bytes.get(1));
    long fp = SchemaNormalization.parsingFingerprint64(SCHEMA);
    for (int i = 0; i < 8; i++) assertEquals((byte) (fp >>> (8 * i)), bytes.get(2 + i));
  }

  @Test
  void rejectsUnknownFingerprintAndGarbageAsValues() throws Exception {
    byte[] bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), SCHEMA).encode(event()).array();
    bytes[5] ^= 0x01;
    EventDecoder decoder = new EventDecoder();
    assertNotNull(decoder.decode(bytes).error());
    assertNotNull(decoder.decode(new byte[] {1, 2, 3}).error());
    assertNotNull(decoder.decode(null).error());
  }
}
