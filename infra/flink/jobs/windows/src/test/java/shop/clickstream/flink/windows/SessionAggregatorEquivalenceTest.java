package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The session operator with its compact state serializer and fewer timers against {@link LegacySessionAggregator} (the
 * operator before those changes): the same random inputs (in-order and out-of-order events, merges, payments,
 * corrections behind the watermark, emit ticks, expiry, restores) must give the same rows with the same versions,
 * finality and emission times, step by step.
 *
 * <p>One difference is allowed, and only for keys that were final already (corrections after finality, which need a
 * partition read far behind the others): the old operator emitted such a correction at the next emit tick or at the next
 * firing of any of the key's many stale timers, whichever came first; the new one has no stale timers, so it emits at
 * the next tick or when the session's own finality timer fires. Both emit the same contents, but the number of
 * coalesced versions may differ. For those keys the test checks what the reconciler checks: the latest row of every key
 * is the same and final, and versions only grow. Also: state written by the old POJO list serializer restores into
 * the new one.
 */
class SessionAggregatorEquivalenceTest {
  private static final long L = 5_000;
  /**
   * Longer than any disorder of the histories (events at most 120 s behind the clock, the watermark at most at the
   * clock): a session is never dropped while a change of it waits for its emission. Both operators drop a session whose
   * retention has passed without emitting a pending change first; in the job that takes an on-time event read more than
   * the retention (15 min) behind the watermark, the limit docs/FLINK.md states ("State lifetime").
   */
  private static final long RETENTION = 300_000;
  private static final AggregateSettings SETTINGS = new AggregateSettings(L, 1_000, RETENTION);

  static KeyedOneInputStreamOperatorTestHarness<Tuple2<String, String>, CleanEvent, SessionRow> harness(
      KeyedProcessFunction<Tuple2<String, String>, CleanEvent, SessionRow> f, OperatorSubtaskState restore, long now)
      throws Exception {
    KeyedOneInputStreamOperatorTestHarness<Tuple2<String, String>, CleanEvent, SessionRow> h =
        new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(f), SessionAggregator.keySelector(),
            SessionAggregator.keyType());
    h.setup();
    if (restore != null) h.initializeState(restore);
    h.open();
    h.setProcessingTime(now);
    return h;
  }

  /** Rows of one step, split into those of keys that were final before the step (lenient) and the rest (strict). */
  static final class Step {
    final List<String> strict = new ArrayList<>();
    final Map<String, SessionRow> latestOfFinalKeys = new HashMap<>();
  }

  /** Keys that had a final row; the latest row and version of every key; checks that versions grow. */
  static final class History {
    final Set<String> finalKeys = new HashSet<>();
    final Map<String, SessionRow> latest = new TreeMap<>();

    Step take(KeyedOneInputStreamOperatorTestHarness<Tuple2<String, String>, CleanEvent, SessionRow> h, String where) {
      Step step = new Step();
      for (SessionRow r : h.extractOutputValues()) {
        String key = r.kafkaKey();
        SessionRow before = latest.get(key);
        assertTrue(before == null || r.version > before.version, where + ": version did not grow: " + r);
        latest.put(key, r);
        if (finalKeys.contains(key)) step.latestOfFinalKeys.put(key, r);
        else step.strict.add(r + " @" + r.emittedAt);
      }
      h.getOutput().clear();
      step.strict.sort(null);
      return step;
    }

    void endStep() {
      for (SessionRow r : latest.values()) if (r.isFinal) finalKeys.add(r.kafkaKey());
    }
  }

  static String contents(SessionRow r) {
    return r.kafkaKey() + " end=" + r.sessionEnd + " n=" + r.eventCount + " rev=" + r.revenueCents + " converted="
        + r.converted + " final=" + r.isFinal + " retracted=" + r.retracted;
  }

  static List<String> drain(KeyedOneInputStreamOperatorTestHarness<Tuple2<String, String>, CleanEvent, SessionRow> h) {
    List<String> rows = new ArrayList<>();
    for (SessionRow r : h.extractOutputValues()) rows.add(r.toString() + " @" + r.emittedAt);
    h.getOutput().clear();
    rows.sort(null);
    return rows;
  }

  /** Runs one random history through both operators; returns {rows, old event-time timers max, new max}. */
  static long[] runBoth(long seed, boolean restores) throws Exception {
    Random rnd = new Random(seed);
    long now = 0;
    long clock = 1_000_000;
    long watermark = Long.MIN_VALUE;
    long rows = 0;
    long oldTimers = 0;
    long newTimers = 0;
    boolean dropped = false;
    Set<String> keysSeen = new HashSet<>();
    History oldRows = new History();
    History newRows = new History();
    var oldH = harness(new LegacySessionAggregator(SETTINGS), null, now);
    var newH = harness(new SessionAggregator(SETTINGS), null, now);
    try {
      for (int step = 0; step < 600; step++) {
        double p = rnd.nextDouble();
        String what;
        if (p < 0.6) {
          // Session ids move on with the clock, so that old keys stop getting events and reach their retention.
          String session = "s" + (clock / 100_000 + rnd.nextInt(8));
          // Mostly near the clock (sessions grow), sometimes far behind (merges, earlier starts, corrections after final).
          long eventTime = rnd.nextDouble() < 0.85 ? clock - rnd.nextInt(4_000) : clock - rnd.nextInt(120_000);
          boolean pay = rnd.nextDouble() < 0.1;
          CleanEvent e = pay ? Events.pay(session, eventTime, 1 + rnd.nextInt(5_000)) : Events.view(session, eventTime);
          what = "event " + session + " " + eventTime;
          keysSeen.add(session);
          oldH.processElement(Events.rec(e));
          newH.processElement(Events.rec(copyOf(e)));
          clock += rnd.nextInt(5_000);
        } else if (p < 0.8) {
          watermark = Math.max(watermark, clock - 3_000 - rnd.nextInt(40_000));
          if (rnd.nextDouble() < 0.05) watermark = Math.max(watermark, clock); // a jump past every finality
          what = "watermark " + watermark;
          oldH.processWatermark(new Watermark(watermark));
          newH.processWatermark(new Watermark(watermark));
        } else if (p < 0.97 || !restores) {
          now += rnd.nextInt(1_500);
          what = "processing time " + now;
          oldH.setProcessingTime(now);
          newH.setProcessingTime(now);
        } else {
          what = "snapshot and restore";
          OperatorSubtaskState oldS = oldH.snapshot(step, now);
          OperatorSubtaskState newS = newH.snapshot(step, now);
          oldH.close();
          newH.close();
          oldH = harness(new LegacySessionAggregator(SETTINGS), oldS, now);
          newH = harness(new SessionAggregator(SETTINGS), newS, now);
        }
        String where = "seed " + seed + ", step " + step + ": " + what;
        Step expected = oldRows.take(oldH, where);
        Step actual = newRows.take(newH, where);
        assertEquals(expected.strict, actual.strict, where);
        assertEquals(oldRows.finalKeys, newRows.finalKeys, where);
        // State is dropped at the same watermark (retention), key by key.
        assertEquals(oldH.numKeyedStateEntries(), newH.numKeyedStateEntries(), where + ": keys with state");
        dropped |= newH.numKeyedStateEntries() < keysSeen.size();
        oldRows.endStep();
        newRows.endStep();
        rows += expected.strict.size();
        oldTimers = Math.max(oldTimers, oldH.numEventTimeTimers());
        newTimers = Math.max(newTimers, newH.numEventTimeTimers());
      }
      // Every pending change out (a tick), then the latest row of every key must be the same on both sides.
      now += 1_000;
      oldH.setProcessingTime(now);
      newH.setProcessingTime(now);
      oldRows.take(oldH, "seed " + seed + ", last tick");
      newRows.take(newH, "seed " + seed + ", last tick");
      assertEquals(oldRows.latest.keySet(), newRows.latest.keySet(), "seed " + seed);
      for (String key : oldRows.latest.keySet()) {
        assertEquals(contents(oldRows.latest.get(key)), contents(newRows.latest.get(key)), "seed " + seed + ": " + key);
      }
    } finally {
      oldH.close();
      newH.close();
    }
    return new long[] {rows, oldTimers, newTimers, dropped ? 1 : 0};
  }

  static CleanEvent copyOf(CleanEvent e) {
    return Events.event(e.runId, e.sessionId, e.eventType, e.eventTime, e.ingestTime, e.amountCents);
  }

  @Test
  void sameRowsVersionsAndEmissionTimesAsTheOldOperator() throws Exception {
    long rows = 0;
    long drops = 0;
    for (long seed = 1; seed <= 20; seed++) {
      long[] r = runBoth(seed, false);
      rows += r[0];
      drops += r[3];
      assertTrue(r[2] <= r[1], "seed " + seed + ": more event-time timers than before (" + r[2] + " > " + r[1] + ")");
    }
    assertTrue(rows > 1_000, "the histories must emit rows to compare (" + rows + ")");
    assertTrue(drops > 5, "the histories must reach the retention of some keys (" + drops + ")");
  }

  @Test
  void sameRowsThroughSnapshotsAndRestores() throws Exception {
    long rows = 0;
    for (long seed = 100; seed <= 120; seed++) rows += runBoth(seed, true)[0];
    assertTrue(rows > 1_000, "the histories must emit rows to compare (" + rows + ")");
  }

  @Test
  void aGrowingSessionKeepsOneFinalityTimerAndOneTickInsteadOfThreePerEvent() throws Exception {
    try (var h = harness(new SessionAggregator(SETTINGS), null, 0)) {
      for (int i = 0; i < 100; i++) h.processElement(Events.rec(Events.view("s", 100_000 + i * 1_000L)));
      assertEquals(1, h.numEventTimeTimers());
      assertEquals(1, h.numProcessingTimeTimers());
      h.setProcessingTime(1_000);
      assertEquals("[run-test|s|100000 end=199000 n=100 rev=0 v=1 @1000]", drain(h).toString());
      long finalAt = 199_000 + SessionAggregator.GAP_MS + L - 1;
      h.processWatermark(new Watermark(finalAt));
      assertEquals("[run-test|s|100000 end=199000 n=100 rev=0 v=2 final @1000]", drain(h).toString());
      assertEquals(1, h.numEventTimeTimers(), "the retention timer");
      h.processWatermark(new Watermark(finalAt + RETENTION));
      assertEquals(0, h.numKeyedStateEntries());
      assertEquals(0, h.numEventTimeTimers());
    }
  }

  @Test
  void stateOfTheOldPojoListSerializerRestoresAndCarriesOn() throws Exception {
    OperatorSubtaskState oldState;
    String oldRows;
    try (var h = harness(new LegacySessionAggregator(SETTINGS), null, 0)) {
      h.processElement(Events.rec(Events.view("s", 100_000)));
      h.processElement(Events.rec(Events.pay("s", 140_000, 700)));
      h.setProcessingTime(1_000);
      drain(h);
      h.processElement(Events.rec(Events.view("s", 141_000)));
      oldState = h.snapshot(1L, 1_000);
      h.processElement(Events.rec(Events.view("s", 120_000)));
      h.setProcessingTime(2_000);
      h.processWatermark(new Watermark(141_000 + SessionAggregator.GAP_MS + L - 1));
      oldRows = drain(h).toString();
    }
    try (var h = harness(new SessionAggregator(SETTINGS), oldState, 1_000)) {
      h.processElement(Events.rec(Events.view("s", 120_000)));
      h.setProcessingTime(2_000);
      h.processWatermark(new Watermark(141_000 + SessionAggregator.GAP_MS + L - 1));
      String rows = drain(h).toString();
      assertEquals(oldRows, rows);
      assertEquals("[run-test|s|100000 end=141000 n=4 rev=700 converted v=2 @2000,"
          + " run-test|s|100000 end=141000 n=4 rev=700 converted v=3 final @2000,"
          + " run-test|s|140000 end=141000 n=2 rev=700 converted v=2 final RETRACTED @1000]", rows);
    }
  }
}
