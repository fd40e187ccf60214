package shop.clickstream.flink.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class BulkStringSerializerTest {
  /** ASCII keys, the lengths where the length prefix grows (127/128 chars: 1 -> 2 bytes; 16383/16384: 2 -> 3), chars of 2 and 3 bytes, a surrogate pair, null. */
  static List<String> samples() {
    List<String> s = new ArrayList<>(Arrays.asList("", "a", "run-20261206T101500Z-seed-42",
        "0f8fad5b-d9cb-469f-a165-70867728950e", "run-ü|10000|page_view", "€ and 中文", "emoji \uD83D\uDE00 \u0000 \u007f\u0080",
        "a".repeat(126), "a".repeat(127), "b".repeat(128), "c".repeat(16_382), "d".repeat(16_383), "ü".repeat(20_000), null));
    return s;
  }

  static byte[] bytes(TypeSerializer<String> ser, String s) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(16);
    ser.serialize(s, out);
    return out.getCopyOfBuffer();
  }

  @Test
  void writesStringSerializersBytesAndReadsThemBack() throws Exception {
    for (String s : samples()) {
      byte[] flinks = bytes(StringSerializer.INSTANCE, s);
      byte[] ours = bytes(BulkStringSerializer.INSTANCE, s);
      assertArrayEquals(flinks, ours, () -> "bytes of a string of length " + (s == null ? "null" : s.length()));
      DataInputDeserializer in = new DataInputDeserializer(ours);
      assertEquals(s, BulkStringSerializer.INSTANCE.deserialize(in));
      assertEquals(0, in.available());
      DataOutputSerializer copied = new DataOutputSerializer(16);
      BulkStringSerializer.INSTANCE.copy(new DataInputDeserializer(ours), copied);
      assertArrayEquals(flinks, copied.getCopyOfBuffer());
    }
  }

  @Test
  void writesOneCallPerString() throws Exception {
    int[] calls = {0};
    DataOutputSerializer out = new DataOutputSerializer(16) {
      @Override
      public void write(int b) {
        calls[0]++;
        throw new AssertionError("a single byte written");
      }

      @Override
      public void write(byte[] b, int off, int len) throws java.io.IOException {
        calls[0]++;
        super.write(b, off, len);
      }
    };
    BulkStringSerializer.INSTANCE.serialize("0f8fad5b-d9cb-469f-a165-70867728950e", out);
    assertEquals(1, calls[0]);
    assertEquals(37, out.length());
  }

  @Test
  void restoresAsStringSerializerBothWays() throws Exception {
    TypeSerializerSnapshot<String> ours = BulkStringSerializer.INSTANCE.snapshotConfiguration();
    TypeSerializerSnapshot<String> flinks = StringSerializer.INSTANCE.snapshotConfiguration();
    assertTrue(ours.resolveSchemaCompatibility(flinks).isCompatibleAsIs());
    assertTrue(flinks.resolveSchemaCompatibility(ours).isCompatibleAsIs());

    // A key of two strings: the tuple's snapshot holds its fields' snapshots.
    TypeSerializer<Tuple2<String, String>> newKey =
        new TupleTypeInfo<Tuple2<String, String>>(BulkStringSerializer.TYPE, BulkStringSerializer.TYPE)
            .createSerializer(new SerializerConfigImpl());
    TypeSerializer<Tuple2<String, String>> oldKey =
        new TupleTypeInfo<Tuple2<String, String>>(Types.STRING, Types.STRING).createSerializer(new SerializerConfigImpl());
    assertTrue(newKey.snapshotConfiguration().resolveSchemaCompatibility(oldKey.snapshotConfiguration()).isCompatibleAsIs());
    assertTrue(oldKey.snapshotConfiguration().resolveSchemaCompatibility(newKey.snapshotConfiguration()).isCompatibleAsIs());
    DataOutputSerializer a = new DataOutputSerializer(16);
    DataOutputSerializer b = new DataOutputSerializer(16);
    newKey.serialize(Tuple2.of("run-1", "0f8fad5b"), a);
    oldKey.serialize(Tuple2.of("run-1", "0f8fad5b"), b);
    assertArrayEquals(b.getCopyOfBuffer(), a.getCopyOfBuffer());
  }
}
