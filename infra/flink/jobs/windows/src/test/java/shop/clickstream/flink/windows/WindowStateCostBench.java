package shop.clickstream.flink.windows;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.UUID;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Not a test: what the window operator's distinct-session sets cost on the heap backend, in each form (issue #16). In
 * Flink's operator harness (heap backend, no network, no Kafka): 2,000 events/s of synthetic ingest time for 16 minutes
 * (the job's 15 minutes of retention past finality, so the state stops growing), 3,000 sessions open at a time with
 * canonical UUID ids, each replaced by a new one after about a minute, seven event types (page and product views the
 * most often), event time up to 3 s before ingest time, a watermark every 200 ms and a checkpoint barrier every 5 s
 * (the job's operators and defaults: interim rows emitted at the barrier). Then three full snapshots. Prints, per form:
 * rows out, CPU per event, and CPU and bytes per snapshot. Run both benchmarks from infra/flink: {@code mvn -o test -pl
 * jobs/windows -am -Dtest=WindowStateCostBench -Dsurefire.failIfNoSpecifiedTests=false -Dbench=true} ({@code
 * #retentionFifteenAgainstFiveMinutes} for the second alone: both operators with the job's 15 minutes of retention and
 * with 5). {@code -Dbench.interim=tick} runs the operators with emit ticks every second instead of the barrier's rows.
 */
class WindowStateCostBench {
  /** Interim rows at the barrier (the job's default), or on emit ticks with {@code -Dbench.interim=tick}. */
  private static final boolean AT_BARRIER = !"tick".equals(System.getProperty("bench.interim"));
  private static final AggregateSettings SETTINGS = new AggregateSettings(5_000, AT_BARRIER, 1_000, 900_000);
  private static final String[] TYPES = {"page_view", "page_view", "page_view", "product_view", "product_view",
      "add_to_cart", "search", "checkout_started", "payment_succeeded", "remove_from_cart"};

  static void run(WindowAggregator.SessionSets form, int seconds, AggregateSettings settings) throws Exception {
    try (var h = new KeyedOneInputStreamOperatorTestHarness<>(WindowsJob.aggregate(settings, new WindowAggregator(settings, form)),
        WindowAggregator.keySelector(), WindowAggregator.keyType())) {
      measure(form + ", retention " + settings.retentionMs / 1_000 + " s", h, seconds);
    }
  }

  /** The session operator on the same load (its state is most of the job's: see docs/MEASUREMENTS.md). */
  static void runSessions(int seconds, AggregateSettings settings) throws Exception {
    try (var h = new KeyedOneInputStreamOperatorTestHarness<>(WindowsJob.aggregate(settings, new SessionAggregator(settings)),
        SessionAggregator.keySelector(), SessionAggregator.keyType())) {
      measure("sessions, retention " + settings.retentionMs / 1_000 + " s", h, seconds);
    }
  }

  static <K, O> void measure(String label, KeyedOneInputStreamOperatorTestHarness<K, CleanEvent, O> h, int seconds)
      throws Exception {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Random rnd = new Random(16);
    String[] open = new String[3_000];
    for (int i = 0; i < open.length; i++) open[i] = new UUID(rnd.nextLong(), rnd.nextLong()).toString();
    // The job's backend, and its snapshots in memory however large (the harness's default caps them at 5 MB).
    h.setStateBackend(new HashMapStateBackend());
    h.setCheckpointStorage(new JobManagerCheckpointStorage(Integer.MAX_VALUE));
    h.setup();
    h.open();
    long t0 = 1_800_000_000_000L;
    long events = 0;
    long rows = 0;
    long cpu0 = mx.getCurrentThreadCpuTime();
    for (int half = 0; half < seconds * 2_000; half++) {
      long now = t0 + half / 2;
      int s = rnd.nextInt(open.length);
      if (rnd.nextInt(120) == 0) open[s] = new UUID(rnd.nextLong(), rnd.nextLong()).toString(); // about a minute each
      // A new string per event, as the job's decoder makes one from each record's bytes.
      String id = new String(open[s].getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
      CleanEvent e = Events.event(Events.RUN, id, TYPES[rnd.nextInt(TYPES.length)], now - rnd.nextInt(3_000), now,
          null);
      h.processElement(Events.rec(e));
      events++;
      if (half % 400 == 0) h.processWatermark(new Watermark(now - 3_000));
      if (half % 10_000 == 0) h.prepareSnapshotPreBarrier(half / 10_000 + 1);
      if (half % 2_000 == 0) {
        h.setProcessingTime(now);
        rows += h.extractOutputValues().size();
        h.getOutput().clear();
      }
    }
    long perEvent = (mx.getCurrentThreadCpuTime() - cpu0) / events;
    StringBuilder snaps = new StringBuilder();
    for (int i = 1; i <= 3; i++) {
      long c = mx.getCurrentThreadCpuTime();
      OperatorSubtaskState snap = h.snapshot(seconds / 5 + 1 + i, t0 + seconds * 1_000L);
      snaps.append(String.format("; snapshot %d: %d ms CPU, %.1f MB", i, (mx.getCurrentThreadCpuTime() - c) / 1_000_000,
          snap.getStateSize() / 1e6));
    }
    System.out.printf("%s, interim rows %s: %d events, %d rows, %d ns CPU per event%s%n", label,
        AT_BARRIER ? "at the barrier" : "on ticks", events, rows, perEvent, snaps);
  }

  @Test
  void mapAgainstCompact() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("bench"), "a benchmark: -Dbench=true");
    int seconds = Integer.getInteger("bench.seconds", 960);
    for (int round = 0; round < 2; round++) {
      run(WindowAggregator.SessionSets.MAP, seconds, SETTINGS);
      run(WindowAggregator.SessionSets.COMPACT, seconds, SETTINGS);
    }
  }

  /** The job's retention past finality (15 min) against 5 min, for both operators (windows in the compact form). */
  @Test
  void retentionFifteenAgainstFiveMinutes() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("bench"), "a benchmark: -Dbench=true");
    int seconds = Integer.getInteger("bench.seconds", 960);
    for (int round = 0; round < 2; round++) {
      AggregateSettings five = new AggregateSettings(5_000, AT_BARRIER, 1_000, 300_000);
      run(WindowAggregator.SessionSets.COMPACT, seconds, SETTINGS);
      run(WindowAggregator.SessionSets.COMPACT, seconds, five);
      runSessions(seconds, SETTINGS);
      runSessions(seconds, five);
    }
  }
}
