package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Not a test: CPU time per event of the session operator before issue #16 ({@link LegacySessionAggregator}) and now,
 * in Flink's operator harness (heap state backend, heap timers; no network, no Kafka, no RocksDB), on the windows
 * benchmark's load: 1,000 events/s of synthetic time over 500 session ids, event time up to 3 s before ingest time,
 * 3 % of them 6 to 66 s earlier (late: left out, as the job's lateness rule does), a watermark every 200 ms (ingest time - 3 s), an emit tick every second; 5 minutes of
 * synthetic time after 1 minute of warm-up. Thread CPU time (not wall time), so other load on the machine only adds
 * noise. Run: {@code mvn -q -o test -Dtest=SessionOperatorCostBench -Dbench=true} in infra/flink/jobs/windows.
 */
class SessionOperatorCostBench {
  private static final AggregateSettings SETTINGS = new AggregateSettings(5_000, 1_000, 900_000);

  static long[] run(KeyedProcessFunction<Tuple2<String, String>, CleanEvent, SessionRow> f, int seconds) throws Exception {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Random rnd = new Random(7);
    try (var h = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(f), SessionAggregator.keySelector(),
        SessionAggregator.keyType())) {
      h.setup();
      h.open();
      long t0 = 1_800_000_000_000L;
      long cpu0 = 0;
      long rows = 0;
      long events = 0;
      int warmup = 60;
      for (int ms = 0; ms < (warmup + seconds) * 1_000; ms++) {
        if (ms == warmup * 1_000) {
          cpu0 = mx.getCurrentThreadCpuTime();
          h.getOutput().clear();
        }
        long now = t0 + ms;
        CleanEvent e = Events.event(Events.RUN, "sess-" + rnd.nextInt(500), rnd.nextDouble() < 0.05 ? "payment_succeeded"
            : "page_view", rnd.nextDouble() < 0.03 ? now - 6_000 - rnd.nextInt(60_000) : now - rnd.nextInt(3_000), now, 1_000L);
        // The job's lateness rule sends the minutes-late ones to events.late; the operator sees only on-time events.
        if (Lateness.isOnTime(e.eventTime, e.ingestTime, SETTINGS.latenessMs)) {
          h.processElement(Events.rec(e));
          if (ms >= warmup * 1_000) events++;
        }
        if (ms % 200 == 0) h.processWatermark(new Watermark(now - 3_000));
        if (ms % 1_000 == 0) {
          h.setProcessingTime(now);
          if (ms >= warmup * 1_000) rows += h.getOutput().size();
          h.getOutput().clear();
        }
      }
      long cpu = mx.getCurrentThreadCpuTime() - cpu0;
      return new long[] {cpu / events, rows, h.numEventTimeTimers(), h.numProcessingTimeTimers()};
    }
  }

  @Test
  void cpuPerEventBeforeAndNow() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("bench"), "a benchmark: -Dbench=true");
    int seconds = Integer.getInteger("bench.seconds", 180);
    for (int round = 0; round < 2; round++) {
      long[] before = run(new LegacySessionAggregator(SETTINGS), seconds);
      long[] now = run(new SessionAggregator(SETTINGS), seconds);
      System.out.printf("round %d: before %d ns per on-time event (%d rows out, %d event-time timers, %d tick timers at the end);"
          + " now %d ns/event (%d rows, %d event-time timers, %d tick timers)%n", round, before[0], before[1], before[2],
          before[3], now[0], now[1], now[2], now[3]);
      assertEquals(before[1], now[1], "the same number of rows");
    }
  }
}
