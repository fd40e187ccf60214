package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class CleanEventSerializerTest {
  static CleanEvent roundTrip(CleanEvent e) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    CleanEventSerializer.INSTANCE.serialize(e, out);
    DataOutputSerializer copied = new DataOutputSerializer(64);
    CleanEventSerializer.INSTANCE.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
    assertArrayEquals(out.getCopyOfBuffer(), copied.getCopyOfBuffer(), "copy of the serialized form");
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    CleanEvent back = CleanEventSerializer.INSTANCE.deserialize(in);
    assertEquals(0, in.available(), "every byte read");
    return back;
  }

  static void assertSame(CleanEvent a, CleanEvent b) {
    assertArrayEquals(a.key, b.key);
    assertArrayEquals(a.value, b.value);
    assertArrayEquals(a.headerKeys, b.headerKeys);
    if (a.headerValues == null) assertNull(b.headerValues);
    else for (int i = 0; i < a.headerValues.length; i++) assertArrayEquals(a.headerValues[i], b.headerValues[i]);
    assertEquals(a.partition, b.partition);
    assertEquals(a.timestamp, b.timestamp);
    assertEquals(a.eventId, b.eventId);
    assertEquals(a.seq, b.seq);
    assertEquals(a.runId, b.runId);
    assertEquals(a.eventType, b.eventType);
    assertEquals(a.eventTime, b.eventTime);
    assertEquals(a.sessionId, b.sessionId);
    assertEquals(a.amountCents, b.amountCents);
    assertEquals(a.ingestTime, b.ingestTime);
  }

  @Test
  void everyFieldSurvivesTheRoundTrip() throws Exception {
    CleanEvent e = Events.pay("sess-ü", 1_700_000_000_123L, 4_999);
    e.partition = 5;
    e.seq = 123_456_789_012L;
    e.headerKeys = new String[] {"cs-seq", "cs-run", "empty"};
    e.headerValues = new byte[][] {"42".getBytes(StandardCharsets.UTF_8), new byte[] {0, -1, 127}, null};
    assertSame(e, roundTrip(e));
    assertSame(e, CleanEventSerializer.INSTANCE.copy(e));
  }

  @Test
  void nullsAndEmptiesSurvive() throws Exception {
    CleanEvent e = new CleanEvent();
    e.value = new byte[0];
    e.headerKeys = new String[0];
    e.headerValues = new byte[0][];
    e.eventTime = -1;
    assertSame(e, roundTrip(e));
    assertSame(new CleanEvent(), roundTrip(new CleanEvent()));
  }

  @Test
  void theJobsTypeExtractionPicksThisSerializer() {
    TypeInformation<CleanEvent> info = TypeInformation.of(CleanEvent.class);
    assertInstanceOf(CleanEventSerializer.class, info.createSerializer(new SerializerConfigImpl()));
    assertInstanceOf(CleanEventSerializer.class, new CleanEventDeserializer().getProducedType()
        .createSerializer(new SerializerConfigImpl()));
    assertInstanceOf(CleanEventSerializer.class, Lateness.LATE.getTypeInfo().createSerializer(new SerializerConfigImpl()));
  }
}
