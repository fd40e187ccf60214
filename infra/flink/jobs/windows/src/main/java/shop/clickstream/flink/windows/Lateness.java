package shop.clickstream.flink.windows;

import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The lateness rule of DESIGN.md (same as libs/contracts/src/event/lateness.ts): an event is on time iff
 * {@code event_time >= ingest_time - L}. A pure function of two durable facts of the event, so no replay order, catch-up
 * speed or restored watermark can change it. On-time events go on; late ones (probes included) go to {@link #LATE}.
 */
public final class Lateness extends ProcessFunction<CleanEvent, CleanEvent> {
  private static final long serialVersionUID = 1L;

  public static final OutputTag<CleanEvent> LATE = new OutputTag<>("late") {};

  private final long latenessMs;
  private transient Counter late;
  private transient Counter onTime;

  public Lateness(long latenessMs) {
    this.latenessMs = latenessMs;
  }

  public static boolean isOnTime(long eventTime, long ingestTime, long latenessMs) {
    return eventTime >= ingestTime - latenessMs;
  }

  @Override
  public void open(org.apache.flink.api.common.functions.OpenContext ctx) {
    late = getRuntimeContext().getMetricGroup().counter("late_events");
    onTime = getRuntimeContext().getMetricGroup().counter("on_time_events");
  }

  @Override
  public void processElement(CleanEvent e, Context ctx, Collector<CleanEvent> out) {
    if (isOnTime(e.eventTime, e.ingestTime, latenessMs)) {
      onTime.inc();
      out.collect(e);
    } else {
      late.inc();
      ctx.output(LATE, e);
    }
  }
}
