package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;

class LatenessTest {
  private static final long L = 5_000;

  private static List<Long> times(List<CleanEvent> events) {
    return events.stream().map(e -> e.eventTime).collect(Collectors.toList());
  }

  @Test
  void routesByTheRuleAtTheBoundaryPlusMinusOneMillisecond() throws Exception {
    try (OneInputStreamOperatorTestHarness<CleanEvent, CleanEvent> h =
        ProcessFunctionTestHarnesses.forProcessFunction(new Lateness(L))) {
      long ingest = 1_000_000;
      h.processElement(Events.rec(Events.event("r", "s", "page_view", ingest - L, ingest, null))); // exactly L: on time
      h.processElement(Events.rec(Events.event("r", "s", "page_view", ingest - L + 1, ingest, null))); // on time
      h.processElement(Events.rec(Events.event("r", "s", "page_view", ingest - L - 1, ingest, null))); // 1 ms over: late
      h.processElement(Events.rec(Events.event("r", "s", "page_view", ingest + 60_000, ingest, null))); // future: on time
      h.processElement(Events.rec(Events.event("r", "s", "page_view", ingest - 600_000, ingest, null))); // minutes late
      assertEquals(List.of(ingest - L, ingest - L + 1, ingest + 60_000), times(h.extractOutputValues()));
      assertEquals(List.of(ingest - L - 1, ingest - 600_000),
          h.getSideOutput(Lateness.LATE).stream().map(r -> r.getValue().eventTime).collect(Collectors.toList()));
    }
  }

  @Test
  void theWatermarkNeverDecidesLateness() throws Exception {
    try (OneInputStreamOperatorTestHarness<CleanEvent, CleanEvent> h =
        ProcessFunctionTestHarnesses.forProcessFunction(new Lateness(L))) {
      // A watermark far ahead (as after a catch-up read partitions out of order) must not make an on-time event late.
      h.processWatermark(new Watermark(10_000_000));
      h.processElement(Events.rec(Events.event("r", "s", "page_view", 1_000, 1_500, null)));
      assertEquals(List.of(1_000L), times(h.extractOutputValues()));
      assertEquals(null, h.getSideOutput(Lateness.LATE));
    }
  }

  @Test
  void aLateProbeGoesToTheLateStreamWithItsBytesUnchanged() throws Exception {
    try (OneInputStreamOperatorTestHarness<CleanEvent, CleanEvent> h =
        ProcessFunctionTestHarnesses.forProcessFunction(new Lateness(L))) {
      CleanEvent probe = Events.event("probe-1", "s", "page_view", 0, 60_000, null);
      h.processElement(new StreamRecord<>(probe, 60_000));
      CleanEvent routed = h.getSideOutput(Lateness.LATE).peek().getValue();
      assertArrayEquals(probe.value, routed.value);
      assertArrayEquals(probe.key, routed.key);
      assertArrayEquals(probe.headerKeys, routed.headerKeys);
      assertArrayEquals(probe.headerValues[0], routed.headerValues[0]);
    }
  }

  @Test
  void defaultLatenessIsFiveSeconds() {
    assertEquals(5_000, WindowsJobConfig.parse(new String[0]).latenessMs);
  }
}
