package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The hand-written state serializers: round trips, and state written by the reflective POJO serializers the job used
 * before restoring into them (a running job's retained checkpoint must stay usable). Only the heap backend is available
 * to these tests; RocksDB runs the same migration on restore (docs/FLINK.md, "State serializers").
 */
class StateMigrationTest {
  private static final AggregateSettings SETTINGS = new AggregateSettings(5_000, 1_000, 60_000);

  static <K, O> KeyedOneInputStreamOperatorTestHarness<K, CleanEvent, O> harness(KeyedProcessFunction<K, CleanEvent, O> f,
      KeySelector<CleanEvent, K> keys, TypeInformation<K> keyType, OperatorSubtaskState restore) throws Exception {
    var h = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(f), keys, keyType);
    h.setup();
    if (restore != null) h.initializeState(restore);
    h.open();
    return h;
  }

  static KeyedOneInputStreamOperatorTestHarness<String, CleanEvent, WindowRow> windows(
      KeyedProcessFunction<String, CleanEvent, WindowRow> f, OperatorSubtaskState restore) throws Exception {
    return harness(f, WindowAggregator.keySelector(), WindowAggregator.keyType(), restore);
  }

  static String drain(KeyedOneInputStreamOperatorTestHarness<?, CleanEvent, ?> h) {
    List<Object> rows = new ArrayList<>(h.extractOutputValues());
    h.getOutput().clear();
    return rows.stream().map(Object::toString).sorted().toList().toString();
  }

  /**
   * The keys' types before the bulk-written strings (Flink's StringSerializer): checkpoints written with them restore
   * into the job's key types, keys and timers alike, and the job's own checkpoints restore into them (a rollback).
   */
  @Test
  void keysWrittenByFlinksStringSerializerRestoreIntoTheJobsKeyTypesAndBack() throws Exception {
    TypeInformation<Tuple2<String, String>> oldSessionKey = Types.TUPLE(Types.STRING, Types.STRING);
    long gapAndL = SessionAggregator.GAP_MS + 5_000 - 1;
    OperatorSubtaskState sessions;
    OperatorSubtaskState windows;
    try (var s = harness(new SessionAggregator(SETTINGS), SessionAggregator.keySelector(), oldSessionKey, null);
        var w = harness(new WindowAggregator(SETTINGS), WindowAggregator.keySelector(), Types.STRING, null)) {
      for (var e : List.of(Events.view("s1", 10_000), Events.view("s2", 11_000))) {
        s.processElement(Events.rec(e));
        w.processElement(Events.rec(e));
      }
      s.setProcessingTime(1_000);
      w.setProcessingTime(1_000);
      assertEquals("[run-test|s1|10000 end=10000 n=1 rev=0 v=1, run-test|s2|11000 end=11000 n=1 rev=0 v=1]", drain(s));
      assertEquals("[run-test|10000|page_view n=2 sum=0 sessions=2 v=1]", drain(w));
      sessions = s.snapshot(1L, 1_000);
      windows = w.snapshot(1L, 1_000);
    }
    try (var s = harness(new SessionAggregator(SETTINGS), SessionAggregator.keySelector(), SessionAggregator.keyType(), sessions);
        var w = windows(new WindowAggregator(SETTINGS), windows)) {
      s.setProcessingTime(1_000);
      w.setProcessingTime(1_000);
      s.processElement(Events.rec(Events.view("s1", 20_000)));
      w.processElement(Events.rec(Events.view("s1", 12_000)));
      s.setProcessingTime(2_000);
      w.setProcessingTime(2_000);
      assertEquals("[run-test|s1|10000 end=20000 n=2 rev=0 v=2]", drain(s));
      assertEquals("[run-test|10000|page_view n=3 sum=0 sessions=2 v=2]", drain(w));
      // Restored event-time timers: s2 and the window become final.
      s.processWatermark(new Watermark(11_000 + gapAndL));
      w.processWatermark(new Watermark(20_000 + 5_000 - 1));
      assertEquals("[run-test|s2|11000 end=11000 n=1 rev=0 v=2 final]", drain(s));
      assertEquals("[run-test|10000|page_view n=3 sum=0 sessions=2 v=3 final]", drain(w));
      sessions = s.snapshot(2L, 2_000);
      windows = w.snapshot(2L, 2_000);
    }
    try (var s = harness(new SessionAggregator(SETTINGS), SessionAggregator.keySelector(), oldSessionKey, sessions);
        var w = harness(new WindowAggregator(SETTINGS), WindowAggregator.keySelector(), Types.STRING, windows)) {
      s.setProcessingTime(2_000);
      w.setProcessingTime(2_000);
      s.processWatermark(new Watermark(20_000 + gapAndL));
      assertEquals("[run-test|s1|10000 end=20000 n=2 rev=0 v=3 final]", drain(s));
      w.processElement(Events.rec(Events.view("s3", 30_000)));
      w.setProcessingTime(3_000);
      assertEquals("[run-test|30000|page_view n=1 sum=0 sessions=1 v=1]", drain(w));
    }
  }

  @Test
  void windowStateOfThePojoSerializerRestoresAndCarriesOn() throws Exception {
    OperatorSubtaskState old;
    String expected;
    try (var h = windows(new LegacyWindowAggregator(SETTINGS), null)) {
      h.processElement(Events.rec(Events.view("s1", 10_100)));
      h.processElement(Events.rec(Events.pay("s2", 10_200, 250)));
      h.setProcessingTime(1_000);
      drain(h);
      h.processElement(Events.rec(Events.view("s1", 12_000)));
      old = h.snapshot(1L, 1_000);
      h.processElement(Events.rec(Events.view("s3", 15_000)));
      h.setProcessingTime(2_000);
      h.processWatermark(new Watermark(20_000 + 5_000 - 1));
      expected = drain(h);
    }
    try (var h = windows(new WindowAggregator(SETTINGS), old)) {
      h.setProcessingTime(1_000);
      h.processElement(Events.rec(Events.view("s3", 15_000)));
      h.setProcessingTime(2_000);
      h.processWatermark(new Watermark(20_000 + 5_000 - 1));
      String rows = drain(h);
      assertEquals(expected, rows);
      assertEquals("[run-test|10000|page_view n=3 sum=0 sessions=2 v=2, run-test|10000|page_view n=3 sum=0 sessions=2 v=3"
          + " final, run-test|10000|payment_succeeded n=1 sum=250 sessions=1 v=2 final]", rows);
    }
  }

  @Test
  void distinctSessionsCarryOverBetweenTheMapAndTheCompactFormBothWays() throws Exception {
    String a = "0f8fad5b-d9cb-469f-a165-70867728950e";
    String b = "merge-0f8fad5b";
    String c = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
    OperatorSubtaskState written;
    // The map form wrote every checkpoint before the compact form existed, and is what RocksDB keeps.
    try (var h = windows(new WindowAggregator(SETTINGS, WindowAggregator.SessionSets.MAP), null)) {
      h.processElement(Events.rec(Events.view(a, 10_100)));
      h.processElement(Events.rec(Events.view(b, 10_200)));
      written = h.snapshot(1L, 0);
    }
    try (var h = windows(new WindowAggregator(SETTINGS, WindowAggregator.SessionSets.COMPACT), written)) {
      h.processElement(Events.rec(Events.view(a, 11_000)));
      h.processElement(Events.rec(Events.view(b, 11_100)));
      h.processElement(Events.rec(Events.view(c, 11_200)));
      h.setProcessingTime(1_000);
      assertEquals("[run-test|10000|page_view n=5 sum=0 sessions=3 v=1]", drain(h));
      written = h.snapshot(2L, 1_000);
    }
    try (var h = windows(new WindowAggregator(SETTINGS, WindowAggregator.SessionSets.MAP), written)) {
      h.setProcessingTime(1_000);
      for (String s : List.of(a, b, c, "s4")) h.processElement(Events.rec(Events.view(s, 12_000)));
      h.setProcessingTime(2_000);
      assertEquals("[run-test|10000|page_view n=9 sum=0 sessions=4 v=2]", drain(h));
    }
  }

  @Test
  void sessionListRoundTrip() throws Exception {
    SessionAggregator.Session s = new SessionAggregator.Session();
    s.start = -5;
    s.end = Long.MAX_VALUE;
    s.eventCount = 3;
    s.revenueCents = 1_234;
    s.converted = true;
    s.version = 7;
    s.finalEmitted = false;
    s.dirty = true;
    DataOutputSerializer out = new DataOutputSerializer(64);
    SessionListSerializer.INSTANCE.serialize(List.of(s, new SessionAggregator.Session()), out);
    DataOutputSerializer copied = new DataOutputSerializer(64);
    SessionListSerializer.INSTANCE.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
    DataInputDeserializer in = new DataInputDeserializer(copied.getCopyOfBuffer());
    List<SessionAggregator.Session> back = SessionListSerializer.INSTANCE.deserialize(in);
    assertEquals(0, in.available());
    assertEquals(2, back.size());
    SessionAggregator.Session b = back.get(0);
    assertEquals(List.of(-5L, Long.MAX_VALUE, 3L, 1_234L, 7L), List.of(b.start, b.end, b.eventCount, b.revenueCents, b.version));
    assertEquals(List.of(true, false, true), List.of(b.converted, b.finalEmitted, b.dirty));
    SessionAggregator.Session c = SessionListSerializer.INSTANCE.copy(back).get(0);
    assertEquals(List.of(-5L, Long.MAX_VALUE, 3L, 1_234L, 7L), List.of(c.start, c.end, c.eventCount, c.revenueCents, c.version));
  }

  @Test
  void windowAccRoundTrip() throws Exception {
    WindowAggregator.Acc a = new WindowAggregator.Acc();
    a.runId = "run-ü";
    a.windowStart = -10_000;
    a.eventType = null;
    a.eventCount = 9;
    a.amountCentsSum = 99;
    a.distinctSessions = 4;
    a.version = 2;
    a.finalEmitted = true;
    DataOutputSerializer out = new DataOutputSerializer(64);
    WindowAccSerializer.INSTANCE.serialize(a, out);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    WindowAggregator.Acc b = WindowAccSerializer.INSTANCE.deserialize(in);
    assertEquals(0, in.available());
    assertEquals(List.of("run-ü", -10_000L, 9L, 99L, 4L, 2L, true, false),
        List.of(b.runId, b.windowStart, b.eventCount, b.amountCentsSum, b.distinctSessions, b.version, b.finalEmitted, b.dirty));
    assertEquals(null, b.eventType);
  }
}
