package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * Interim rows at the checkpoint barrier ({@link InterimAtCheckpointOperator}, the job's default): a changed key is
 * emitted once right before each barrier, final rows still at the watermark, a restore continues the versions, and
 * the latest row of every key is what the emit ticks give.
 */
class InterimAtCheckpointTest {
  private static final long L = 5_000;
  private static final long GAP = SessionAggregator.GAP_MS;
  private static final AggregateSettings AT_CHECKPOINT = new AggregateSettings(L, true, 1_000, 300_000);
  private static final AggregateSettings TICKS = new AggregateSettings(L, false, 1_000, 300_000);

  static <K, OUT> KeyedOneInputStreamOperatorTestHarness<K, CleanEvent, OUT> open(KeyedProcessOperator<K, CleanEvent, OUT> op,
      KeySelector<CleanEvent, K> keys, TypeInformation<K> keyType, OperatorSubtaskState restore) throws Exception {
    var h = new KeyedOneInputStreamOperatorTestHarness<>(op, keys, keyType);
    h.setup();
    if (restore != null) h.initializeState(restore);
    h.open();
    return h;
  }

  static KeyedOneInputStreamOperatorTestHarness<String, CleanEvent, WindowRow> windows(AggregateSettings s,
      OperatorSubtaskState restore) throws Exception {
    return open(WindowsJob.aggregate(s, new WindowAggregator(s)), WindowAggregator.keySelector(), WindowAggregator.keyType(),
        restore);
  }

  static KeyedOneInputStreamOperatorTestHarness<Tuple2<String, String>, CleanEvent, SessionRow> sessions(
      AggregateSettings s, OperatorSubtaskState restore) throws Exception {
    return open(WindowsJob.aggregate(s, new SessionAggregator(s)), SessionAggregator.keySelector(),
        SessionAggregator.keyType(), restore);
  }

  static String drain(KeyedOneInputStreamOperatorTestHarness<?, CleanEvent, ?> h) {
    List<String> rows = new ArrayList<>();
    for (Object r : h.extractOutputValues()) rows.add(r.toString());
    h.getOutput().clear();
    return rows.stream().sorted().toList().toString();
  }

  @Test
  void theJobUsesTheBarrierOperatorByDefaultAndFlinksOwnWithTicks() {
    assertTrue(WindowsJob.aggregate(AT_CHECKPOINT, new WindowAggregator(AT_CHECKPOINT)) instanceof InterimAtCheckpointOperator);
    assertEquals(KeyedProcessOperator.class, WindowsJob.aggregate(TICKS, new WindowAggregator(TICKS)).getClass());
    assertTrue(WindowsJobConfig.parse(new String[0]).aggregateSettings().interimAtCheckpoint);
  }

  @Test
  void aWindowChangedManyTimesIsEmittedOnceAtTheBarrierAndFinalAtTheWatermark() throws Exception {
    OperatorSubtaskState snapshot;
    try (var h = windows(AT_CHECKPOINT, null)) {
      h.setProcessingTime(0);
      h.processElement(Events.rec(Events.view("s1", 10_100)));
      h.processElement(Events.rec(Events.view("s2", 10_200)));
      h.setProcessingTime(3_000); // three emit ticks' worth of time: no tick
      h.processElement(Events.rec(Events.view("s1", 11_000)));
      assertEquals("[]", drain(h), "nothing before the barrier");
      h.prepareSnapshotPreBarrier(1);
      assertEquals("[run-test|10000|page_view n=3 sum=0 sessions=2 v=1]", drain(h));
      snapshot = h.snapshot(1, 3_000);
      h.prepareSnapshotPreBarrier(2);
      assertEquals("[]", drain(h), "an unchanged key is not emitted again");
    }
    try (var h = windows(AT_CHECKPOINT, snapshot)) {
      h.prepareSnapshotPreBarrier(2);
      assertEquals("[]", drain(h), "the snapshot holds no changed key");
      h.processElement(Events.rec(Events.view("s3", 12_000)));
      h.processWatermark(new Watermark(20_000 + L - 1));
      assertEquals("[run-test|10000|page_view n=4 sum=0 sessions=3 v=2 final]", drain(h), "versions continue");
      h.prepareSnapshotPreBarrier(3);
      assertEquals("[]", drain(h), "the final row took the change");
    }
  }

  @Test
  void aSessionIsEmittedOnceABarrierRetractionsAtOnceAndTheLastChangesAtTheEnd() throws Exception {
    var h = sessions(AT_CHECKPOINT, null);
    {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      h.processElement(Events.rec(Events.view("s", 110_000)));
      h.prepareSnapshotPreBarrier(1);
      assertEquals("[run-test|s|100000 end=110000 n=2 rev=0 v=1]", drain(h));
      h.processElement(Events.rec(Events.view("s", 80_000))); // moves the start: the old key is retracted at once
      assertEquals("[run-test|s|100000 end=110000 n=2 rev=0 v=2 final RETRACTED]", drain(h));
      h.processElement(Events.rec(Events.pay("s", 115_000, 500)));
      h.prepareSnapshotPreBarrier(2);
      assertEquals("[run-test|s|80000 end=115000 n=4 rev=500 converted v=1]", drain(h));
      h.processElement(Events.rec(Events.view("s", 116_000)));
      h.close(); // finish(), as at the end of a bounded input or a drain
      assertEquals("[run-test|s|80000 end=116000 n=5 rev=500 converted v=2]", drain(h), "finish() emits the last change");
    }
  }

  @Test
  void stateFromAJobWithEmitTicksKeepsItsPendingTick() throws Exception {
    OperatorSubtaskState snapshot;
    try (var h = windows(TICKS, null)) {
      h.setProcessingTime(0);
      h.processElement(Events.rec(Events.view("s1", 10_100)));
      snapshot = h.snapshot(1, 0);
    }
    try (var h = windows(AT_CHECKPOINT, snapshot)) {
      h.setProcessingTime(1_000);
      assertEquals("[run-test|10000|page_view n=1 sum=0 sessions=1 v=1]", drain(h), "the restored tick fires");
      h.processElement(Events.rec(Events.view("s2", 10_200)));
      h.setProcessingTime(2_000);
      assertEquals("[]", drain(h), "no new tick");
      h.prepareSnapshotPreBarrier(2);
      assertEquals("[run-test|10000|page_view n=2 sum=0 sessions=2 v=2]", drain(h));
    }
  }

  /**
   * Random events (out of order, across windows, sessions that merge, some behind the watermark), the same into an
   * operator with ticks every second and one with a barrier every five: after the last watermark, every key's latest
   * row has the same contents and finality. Only the number of interim versions differs.
   */
  @Test
  void theLatestRowOfEveryKeyIsTheSameAsWithEmitTicks() throws Exception {
    for (long seed = 1; seed <= 5; seed++) {
      Opener windows = InterimAtCheckpointTest::windows;
      Opener sessions = InterimAtCheckpointTest::sessions;
      assertEquals(latest(seed, TICKS, windows), latest(seed, AT_CHECKPOINT, windows));
      assertEquals(latest(seed, TICKS, sessions), latest(seed, AT_CHECKPOINT, sessions));
    }
  }

  interface Opener {
    KeyedOneInputStreamOperatorTestHarness<?, CleanEvent, ?> open(AggregateSettings s, OperatorSubtaskState restore)
        throws Exception;
  }

  static Map<String, String> latest(long seed, AggregateSettings s, Opener opener) throws Exception {
    Random rnd = new Random(seed);
    Map<String, String> latest = new TreeMap<>();
    Function<String, String> key = row -> row.substring(0, row.indexOf(' '));
    try (var h = opener.open(s, null)) {
      long now = 0;
      for (int i = 0; i < 3_000; i++) {
        now += rnd.nextInt(20);
        long eventTime = now - rnd.nextInt(rnd.nextInt(10) == 0 ? 40_000 : 3_000);
        String session = "s" + rnd.nextInt(40);
        boolean pay = rnd.nextInt(8) == 0;
        h.processElement(Events.rec(Events.event(Events.RUN, session, pay ? "payment_succeeded" : "page_view", eventTime, now,
            pay ? (long) rnd.nextInt(1_000) : null)));
        if (i % 50 == 0) h.processWatermark(new Watermark(now - 3_000));
        h.setProcessingTime(now);
        if (i % 250 == 0) h.prepareSnapshotPreBarrier(i);
        collect(h, latest, key);
      }
      h.setProcessingTime(now + 1_000);
      h.prepareSnapshotPreBarrier(Long.MAX_VALUE);
      h.processWatermark(new Watermark(now + 300_000));
      collect(h, latest, key);
    }
    // A session key emitted before a merge is retracted; at the barrier fewer keys are emitted before their merge, so
    // fewer are retracted. Readers drop retracted rows: compare what they keep.
    latest.values().removeIf(row -> row.endsWith(" RETRACTED"));
    latest.values().forEach(row -> assertTrue(row.endsWith(" final"), row));
    return latest;
  }

  static void collect(KeyedOneInputStreamOperatorTestHarness<?, CleanEvent, ?> h, Map<String, String> latest,
      Function<String, String> key) {
    for (Object r : h.extractOutputValues()) {
      String row = r.toString().replaceFirst(" v=\\d+", "");
      latest.put(key.apply(row), row);
    }
    h.getOutput().clear();
  }
}
