package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class SessionAggregatorTest {
  private static final long L = 5_000;
  private static final long GAP = SessionAggregator.GAP_MS;
  private static final long RETENTION = 60_000;
  private static final AggregateSettings SETTINGS = new AggregateSettings(L, 1_000, RETENTION);

  static KeyedOneInputStreamOperatorTestHarness<Tuple2<String, String>, CleanEvent, SessionRow> harness(
      OperatorSubtaskState restore) throws Exception {
    KeyedOneInputStreamOperatorTestHarness<Tuple2<String, String>, CleanEvent, SessionRow> h =
        new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(new SessionAggregator(SETTINGS)),
            SessionAggregator.keySelector(), SessionAggregator.keyType());
    h.setup();
    if (restore != null) h.initializeState(restore);
    h.open();
    return h;
  }

  static String drain(KeyedOneInputStreamOperatorTestHarness<Tuple2<String, String>, CleanEvent, SessionRow> h) {
    List<SessionRow> rows = new ArrayList<>(h.extractOutputValues());
    h.getOutput().clear();
    return rows.stream().map(SessionRow::toString).sorted().toList().toString();
  }

  @Test
  void aGapOfThirtySecondsStartsANewSessionOneMillisecondLessDoesNot() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      h.processElement(Events.rec(Events.view("s", 100_000 + GAP - 1))); // joins
      h.processElement(Events.rec(Events.view("s", 100_000 + GAP - 1 + GAP))); // exactly the gap: new session
      h.setProcessingTime(1_000);
      assertEquals("[run-test|s|100000 end=129999 n=2 rev=0 v=1, run-test|s|159999 end=159999 n=1 rev=0 v=1]", drain(h));
    }
  }

  @Test
  void revenueConversionAndFinalityAtEndPlusGapPlusL() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      h.processElement(Events.rec(Events.pay("s", 110_000, 1_234)));
      h.processElement(Events.rec(Events.event(Events.RUN, "s", "payment_failed", 111_000, 111_100, 99L)));
      long finalAt = 111_000 + GAP + L - 1;
      h.processWatermark(new Watermark(finalAt - 1));
      assertEquals("[]", drain(h));
      h.processWatermark(new Watermark(finalAt));
      assertEquals("[run-test|s|100000 end=111000 n=3 rev=1234 converted v=1 final]", drain(h));
    }
  }

  @Test
  void anOutOfOrderEventMergesTwoSessionsAndRetractsTheReplacedKey() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      h.processElement(Events.rec(Events.pay("s", 140_000, 500)));
      h.setProcessingTime(1_000);
      assertEquals("[run-test|s|100000 end=100000 n=1 rev=0 v=1, run-test|s|140000 end=140000 n=1 rev=500 converted v=1]",
          drain(h));
      // Bridges the two (within the gap of both): one session from 100000, key 140000 retracted with a higher version.
      h.processElement(Events.rec(Events.view("s", 120_000)));
      assertEquals("[run-test|s|140000 end=140000 n=1 rev=500 converted v=2 final RETRACTED]", drain(h));
      h.setProcessingTime(2_000);
      assertEquals("[run-test|s|100000 end=140000 n=3 rev=500 converted v=2]", drain(h));
      h.processWatermark(new Watermark(140_000 + GAP + L - 1));
      assertEquals("[run-test|s|100000 end=140000 n=3 rev=500 converted v=3 final]", drain(h));
    }
  }

  @Test
  void anEarlierEventMovesTheStartAndRetractsTheOldKey() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      h.setProcessingTime(1_000);
      assertEquals("[run-test|s|100000 end=100000 n=1 rev=0 v=1]", drain(h));
      h.processElement(Events.rec(Events.view("s", 80_000)));
      h.setProcessingTime(2_000);
      assertEquals("[run-test|s|100000 end=100000 n=1 rev=0 v=2 final RETRACTED, run-test|s|80000 end=100000 n=2 rev=0 v=1]",
          drain(h));
    }
  }

  @Test
  void aKeyNeverEmittedNeedsNoRetraction() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      h.processElement(Events.rec(Events.view("s", 140_000)));
      h.processElement(Events.rec(Events.view("s", 120_000)));
      h.setProcessingTime(1_000);
      assertEquals("[run-test|s|100000 end=140000 n=3 rev=0 v=1]", drain(h));
    }
  }

  @Test
  void threeSessionsMergeIntoOneWithAnEarlierStart() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      h.processElement(Events.rec(Events.view("s", 135_000)));
      h.processElement(Events.rec(Events.view("s", 170_000)));
      h.setProcessingTime(1_000);
      drain(h);
      h.processElement(Events.rec(Events.view("s", 118_000))); // merges 100000 and 135000
      h.processElement(Events.rec(Events.view("s", 152_000))); // merges that with 170000
      h.setProcessingTime(2_000);
      assertEquals("[run-test|s|100000 end=170000 n=5 rev=0 v=2, run-test|s|135000 end=135000 n=1 rev=0 v=2 final RETRACTED,"
          + " run-test|s|170000 end=170000 n=1 rev=0 v=2 final RETRACTED]", drain(h));
    }
  }

  @Test
  void snapshotAndRestoreInTheMiddleOfASessionThenAMergeAfterTheRestore() throws Exception {
    OperatorSubtaskState snapshot;
    String aborted;
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      h.processElement(Events.rec(Events.pay("s", 140_000, 700)));
      h.setProcessingTime(1_000);
      assertEquals("[run-test|s|100000 end=100000 n=1 rev=0 v=1, run-test|s|140000 end=140000 n=1 rev=700 converted v=1]",
          drain(h));
      snapshot = h.snapshot(1L, 1_000);
      h.processElement(Events.rec(Events.view("s", 120_000)));
      h.setProcessingTime(2_000);
      aborted = drain(h);
    }
    try (var h = harness(snapshot)) {
      h.processElement(Events.rec(Events.view("s", 120_000)));
      h.setProcessingTime(2_000);
      String replayed = drain(h);
      assertEquals(aborted, replayed, "a replay after the restore emits the same rows and versions");
      assertEquals("[run-test|s|100000 end=140000 n=3 rev=700 converted v=2,"
          + " run-test|s|140000 end=140000 n=1 rev=700 converted v=2 final RETRACTED]", replayed);
      h.processElement(Events.rec(Events.view("s", 160_000)));
      h.processWatermark(new Watermark(160_000 + GAP + L - 1));
      assertEquals("[run-test|s|100000 end=160000 n=4 rev=700 converted v=3 final]", drain(h));
    }
  }

  @Test
  void aCorrectionAfterFinalityAndARestoreStaysFinal() throws Exception {
    OperatorSubtaskState snapshot;
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      h.processWatermark(new Watermark(100_000 + GAP + L - 1));
      assertEquals("[run-test|s|100000 end=100000 n=1 rev=0 v=1 final]", drain(h));
      snapshot = h.snapshot(1L, 0);
    }
    try (var h = harness(snapshot)) {
      h.processElement(Events.rec(Events.view("s", 110_000)));
      h.setProcessingTime(1_000);
      assertEquals("[run-test|s|100000 end=110000 n=2 rev=0 v=2 final]", drain(h));
    }
  }

  @Test
  void stateIsKeptAfterFinalityAndDroppedAfterRetention() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      long finalAt = 100_000 + GAP + L - 1;
      h.processWatermark(new Watermark(finalAt + RETENTION - 1));
      drain(h);
      assertTrue(h.numKeyedStateEntries() > 0);
      h.processWatermark(new Watermark(finalAt + RETENTION));
      assertEquals(0, h.numKeyedStateEntries());
    }
  }

  @Test
  void aWatermarkThatPassesFinalityAndRetentionAtOnceStillEmitsTheFinalRows() throws Exception {
    try (var h = harness(null)) {
      // One session already emitted (not final) and grown since; one whose first emit tick has not come yet.
      h.processElement(Events.rec(Events.view("a", 100_000)));
      h.setProcessingTime(1_000);
      assertEquals("[run-test|a|100000 end=100000 n=1 rev=0 v=1]", drain(h));
      h.processElement(Events.rec(Events.view("a", 110_000)));
      h.processElement(Events.rec(Events.view("b", 120_000)));
      // A catch-up: the next watermark is past both sessions' finality plus the retention.
      h.processWatermark(new Watermark(120_000 + GAP + L - 1 + RETENTION + 600_000));
      assertEquals(
          "[run-test|a|100000 end=110000 n=2 rev=0 v=2 final, run-test|b|120000 end=120000 n=1 rev=0 v=1 final]", drain(h));
      assertEquals(0, h.numKeyedStateEntries());
      h.setProcessingTime(2_000); // the pending emit tick finds nothing left to emit
      assertEquals("[]", drain(h));
    }
  }

  @Test
  void probeEventsAreExcluded() throws Exception {
    try (var h = harness(null)) {
      h.processElement(Events.rec(Events.event("probe-x", "s", "page_view", 100_000, 100_010, null)));
      h.setProcessingTime(1_000);
      h.processWatermark(new Watermark(1_000_000));
      assertEquals("[]", drain(h));
      assertEquals(0, h.numKeyedStateEntries());
    }
  }
}
