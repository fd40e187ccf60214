package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** {@code events_after_retention}: on-time events read after the state they belong to may have been dropped. */
class EventsAfterRetentionTest {
  private static final long L = 5_000;
  private static final long RETENTION = 60_000;
  private static final AggregateSettings SETTINGS = new AggregateSettings(L, 1_000, RETENTION);

  @Test
  void aWindowEventAfterItsStateWasDroppedIsCounted() throws Exception {
    WindowAggregator f = new WindowAggregator(SETTINGS);
    try (var h = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(f), WindowAggregator.keySelector(),
        WindowAggregator.keyType())) {
      h.open();
      h.processElement(Events.rec(Events.view("s1", 10_100)));
      long finalAt = 20_000 + L - 1;
      h.processWatermark(new Watermark(finalAt + RETENTION - 1));
      h.processElement(Events.rec(Events.view("s2", 10_200))); // state still there: a correction
      assertEquals(0, f.eventsAfterRetention());
      h.processWatermark(new Watermark(finalAt + RETENTION)); // dropped
      h.processElement(Events.rec(Events.view("s3", 10_300)));
      assertEquals(1, f.eventsAfterRetention());
      h.processElement(Events.rec(Events.view("s3", finalAt + RETENTION))); // a window of its own time
      assertEquals(1, f.eventsAfterRetention());
    }
  }

  @Test
  void aSessionEventThatCouldHaveJoinedADroppedSessionIsCounted() throws Exception {
    SessionAggregator f = new SessionAggregator(SETTINGS);
    try (var h = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(f), SessionAggregator.keySelector(),
        SessionAggregator.keyType())) {
      h.open();
      h.processElement(Events.rec(Events.view("s", 100_000)));
      long dropped = 100_000 + SessionAggregator.GAP_MS + L - 1 + RETENTION;
      h.processWatermark(new Watermark(dropped - 1));
      h.processElement(Events.rec(Events.view("s", 101_000))); // joins the session, still kept
      assertEquals(0, f.eventsAfterRetention());
      h.processWatermark(new Watermark(dropped + 1_000)); // the session (now ending at 101000) is dropped
      h.processElement(Events.rec(Events.view("s", 102_000)));
      assertEquals(1, f.eventsAfterRetention());
      h.processElement(Events.rec(Events.view("t", dropped))); // a session of its own time
      assertEquals(1, f.eventsAfterRetention());
    }
  }
}
