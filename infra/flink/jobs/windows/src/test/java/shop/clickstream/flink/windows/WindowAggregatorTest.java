package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class WindowAggregatorTest {
  private static final long L = 5_000;
  private static final long RETENTION = 60_000;
  private static final AggregateSettings SETTINGS = new AggregateSettings(L, 1_000, RETENTION);
  /** Window [10000, 20000) is final once the watermark reaches 20000 + L - 1. */
  private static final long FINAL_AT = 20_000 + L - 1;

  /** Where the operator under test keeps its distinct sessions; {@link WindowAggregatorMapFormTest} runs every test on the other form. */
  WindowAggregator.SessionSets form() {
    return WindowAggregator.SessionSets.COMPACT;
  }

  KeyedOneInputStreamOperatorTestHarness<String, CleanEvent, WindowRow> harness(OperatorSubtaskState restore)
      throws Exception {
    KeyedOneInputStreamOperatorTestHarness<String, CleanEvent, WindowRow> h = new KeyedOneInputStreamOperatorTestHarness<>(
        new KeyedProcessOperator<>(new WindowAggregator(SETTINGS, form())), WindowAggregator.keySelector(), WindowAggregator.keyType());
    h.setup();
    if (restore != null) h.initializeState(restore);
    h.open();
    return h;
  }

  static List<WindowRow> drain(KeyedOneInputStreamOperatorTestHarness<String, CleanEvent, WindowRow> h) {
    List<WindowRow> rows = new ArrayList<>(h.extractOutputValues());
    h.getOutput().clear();
    return rows;
  }

  static String show(List<WindowRow> rows) {
    return rows.stream().map(WindowRow::toString).sorted().toList().toString();
  }

  @Test
  void probeEventsCountUnderTheProbeRunOnlyAndNeverInAShoppersWindow() throws Exception {
    try (var h = harness(null)) {
      h.setProcessingTime(0);
      h.processElement(Events.rec(Events.view("s1", 10_100)));
      h.processElement(Events.rec(Events.event("probe-x", "probe-x", "page_view", 10_200, 10_210, null)));
      h.processElement(Events.rec(Events.event("probe-x", "probe-x", "page_view", 15_200, 15_210, null)));
      h.setProcessingTime(1_000);
      assertEquals(
          "[probe-x|10000|page_view n=2 sum=0 sessions=1 v=1, run-test|10000|page_view n=1 sum=0 sessions=1 v=1]",
          show(drain(h)));
    }
  }

  @Test
  void countsSumsDistinctSessionsAndFinalizesAtWindowEndPlusL() throws Exception {
    try (var h = harness(null)) {
      h.setProcessingTime(0);
      h.processElement(Events.rec(Events.view("s1", 10_100)));
      h.processElement(Events.rec(Events.view("s2", 10_200)));
      h.processElement(Events.rec(Events.view("s1", 19_999)));
      h.processElement(Events.rec(Events.pay("s1", 12_000, 250)));
      h.processElement(Events.rec(Events.event(Events.RUN, "s3", "payment_succeeded", 13_000, 13_100, null)));
      h.processElement(Events.rec(Events.view("s1", 20_000))); // next window
      assertEquals("[]", show(drain(h)), "nothing before the emit tick");
      h.setProcessingTime(1_000);
      assertEquals(
          "[run-test|10000|page_view n=3 sum=0 sessions=2 v=1, run-test|10000|payment_succeeded n=2 sum=250 sessions=2 v=1,"
              + " run-test|20000|page_view n=1 sum=0 sessions=1 v=1]",
          show(drain(h)));
      h.processWatermark(new Watermark(FINAL_AT - 1));
      assertEquals("[]", show(drain(h)), "not final one millisecond before window_end + L - 1");
      h.processWatermark(new Watermark(FINAL_AT));
      assertEquals(
          "[run-test|10000|page_view n=3 sum=0 sessions=2 v=2 final, run-test|10000|payment_succeeded n=2 sum=250 sessions=2 v=2 final]",
          show(drain(h)));
      h.setProcessingTime(2_000);
      assertEquals("[]", show(drain(h)), "no emission without a change");
    }
  }

  @Test
  void theWatermarkDoesNotDecideContentsAnEventAfterFinalityIsACorrection() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s1", 10_000)));
      h.processWatermark(new Watermark(FINAL_AT));
      assertEquals("[run-test|10000|page_view n=1 sum=0 sessions=1 v=1 final]", show(drain(h)));
      // Breaks the watermark bound (e.g. a partition read far behind the others); still on time by the rule.
      h.processElement(Events.rec(Events.view("s9", 19_000)));
      h.setProcessingTime(1_000);
      assertEquals("[run-test|10000|page_view n=2 sum=0 sessions=2 v=2 final]", show(drain(h)));
    }
  }

  @Test
  void snapshotAndRestoreInTheMiddleOfAWindow() throws Exception {
    OperatorSubtaskState snapshot;
    List<WindowRow> abortedAfterSnapshot;
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s1", 10_100)));
      h.processElement(Events.rec(Events.view("s2", 10_200)));
      h.setProcessingTime(1_000);
      assertEquals("[run-test|10000|page_view n=2 sum=0 sessions=2 v=1]", show(drain(h)));
      snapshot = h.snapshot(1L, 1_000);
      // Output after the checkpoint: it sits in a Kafka transaction that the failure aborts.
      h.processElement(Events.rec(Events.view("s3", 15_000)));
      h.setProcessingTime(2_000);
      abortedAfterSnapshot = drain(h);
    }
    try (var h = harness(snapshot)) {
      // The replay after the restore re-emits the same versions with the same contents.
      h.processElement(Events.rec(Events.view("s3", 15_000)));
      h.setProcessingTime(2_000);
      List<WindowRow> replayed = drain(h);
      assertEquals(show(abortedAfterSnapshot), show(replayed));
      assertEquals("[run-test|10000|page_view n=3 sum=0 sessions=3 v=2]", show(replayed));
      h.processElement(Events.rec(Events.view("s1", 11_000)));
      h.processWatermark(new Watermark(FINAL_AT));
      assertEquals("[run-test|10000|page_view n=4 sum=0 sessions=3 v=3 final]", show(drain(h)));
    }
  }

  @Test
  void aCorrectionAfterARestoreStaysFinalThoughTheWatermarkWasReset() throws Exception {
    OperatorSubtaskState snapshot;
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s1", 10_000)));
      h.processWatermark(new Watermark(FINAL_AT));
      assertEquals("[run-test|10000|page_view n=1 sum=0 sessions=1 v=1 final]", show(drain(h)));
      snapshot = h.snapshot(1L, 0);
    }
    try (var h = harness(snapshot)) {
      h.processElement(Events.rec(Events.view("s1", 12_000)));
      h.setProcessingTime(1_000);
      assertEquals("[run-test|10000|page_view n=2 sum=0 sessions=1 v=2 final]", show(drain(h)));
    }
  }

  @Test
  void stateOutlivesFinalityAndIsDroppedOnlyAfterRetention() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s1", 10_000)));
      h.processWatermark(new Watermark(FINAL_AT + RETENTION - 1));
      drain(h);
      assertTrue(h.numKeyedStateEntries() > 0, "state kept after finality");
      h.processWatermark(new Watermark(FINAL_AT + RETENTION));
      assertEquals(0, h.numKeyedStateEntries(), "state dropped after retention");
      assertEquals("[]", show(drain(h)));
    }
  }

  @Test
  void runsNeverMix() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.event("run-a", "s", "page_view", 10_000, 10_010, null)));
      h.processElement(Events.rec(Events.event("run-b", "s", "page_view", 10_000, 10_010, null)));
      h.processWatermark(new Watermark(FINAL_AT));
      assertEquals("[run-a|10000|page_view n=1 sum=0 sessions=1 v=1 final, run-b|10000|page_view n=1 sum=0 sessions=1 v=1 final]",
          show(drain(h)));
    }
  }

  @Test
  void windowStartOfNegativeAndBoundaryTimes() {
    assertEquals(10_000, WindowAggregator.windowStart(10_000));
    assertEquals(10_000, WindowAggregator.windowStart(19_999));
    assertEquals(-10_000, WindowAggregator.windowStart(-1));
  }
}
