package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class SessionIdSetTest {
  static Set<String> contents(SessionIdSet s) throws Exception {
    Set<String> out = new HashSet<>();
    for (String id : s.ids()) assertTrue(out.add(id), "listed twice: " + id);
    return out;
  }

  static SessionIdSet roundTrip(SessionIdSet s) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    SessionIdSetSerializer.INSTANCE.serialize(s, out);
    DataOutputSerializer copied = new DataOutputSerializer(64);
    SessionIdSetSerializer.INSTANCE.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
    DataInputDeserializer in = new DataInputDeserializer(copied.getCopyOfBuffer());
    SessionIdSet back = SessionIdSetSerializer.INSTANCE.deserialize(in);
    assertEquals(0, in.available());
    return back;
  }

  @Test
  void onlyTheCanonicalLowercaseUuidIsPackedAndEverySpellingStaysItsOwnSession() throws Exception {
    String uuid = "0f8fad5b-d9cb-469f-a165-70867728950e";
    List<String> ids = List.of(uuid, uuid.toUpperCase(), "{" + uuid + "}", uuid.replace("-", ""), "merge-" + uuid,
        "00000000-0000-0000-0000-000000000000", "s1", "", "0f8fad5b-d9cb-469f-a165-70867728950g",
        "0f8fad5bd-9cb-469f-a165-70867728950e", "ffffffff-ffff-ffff-ffff-ffffffffffff");
    SessionIdSet s = new SessionIdSet();
    for (String id : ids) assertTrue(s.add(id), id);
    for (String id : ids) assertFalse(s.add(id), id);
    assertEquals(ids.size(), s.size());
    assertEquals(3, s.packedCount()); // the uuid, the nil uuid and the all-ones one
    assertEquals(new HashSet<>(ids), contents(s));
    assertEquals(new HashSet<>(ids), contents(roundTrip(s)));
  }

  @Test
  void agreesWithAHashSetThroughGrowthRoundTripsAndCopies() throws Exception {
    Random r = new Random(16);
    Set<String> oracle = new HashSet<>();
    SessionIdSet s = new SessionIdSet();
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      String id = !seen.isEmpty() && r.nextInt(3) == 0 ? seen.get(r.nextInt(seen.size()))
          : r.nextInt(50) == 0 ? "merge-" + i : new UUID(r.nextLong(), r.nextLong()).toString();
      seen.add(id);
      assertEquals(oracle.add(id), s.add(id), id);
      if (i % 5_000 == 0) s = roundTrip(s);
    }
    assertEquals(oracle.size(), s.size());
    assertEquals(oracle, contents(s));
    SessionIdSet back = roundTrip(s);
    assertEquals(oracle, contents(back));
    for (String id : oracle) assertFalse(back.add(id));

    SessionIdSet copy = s.copy();
    assertTrue(copy.add("00000000-0000-4000-8000-000000000001"));
    assertTrue(copy.add("another"));
    assertEquals(oracle.size(), s.size());
    assertEquals(oracle, contents(s));
    assertEquals(oracle.size() + 2, copy.size());
  }
}
