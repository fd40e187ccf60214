package shop.clickstream.flink.windows;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import shop.clickstream.flink.windows.WindowAggregator.Acc;

/**
 * The window operator as it was before its state serializer changed (git history: WindowAggregator.java before the
 * issue #16 commits): the aggregate in state through Flink's reflective POJO serializer. Test-only: the writer of
 * old-format state for the migration test.
 */
final class LegacyWindowAggregator extends KeyedProcessFunction<String, CleanEvent, WindowRow> {
  private static final long serialVersionUID = 1L;

  public static final long WINDOW_MS = 10_000;

  private final AggregateSettings settings;
  private transient ValueState<Acc> acc;
  private transient MapState<String, Boolean> sessions;
  private transient Counter corrections;
  private transient Counter rows;

  LegacyWindowAggregator(AggregateSettings settings) {
    this.settings = settings;
  }

  public static long windowStart(long eventTime) {
    return Math.floorDiv(eventTime, WINDOW_MS) * WINDOW_MS;
  }

  /** The key selector of this operator (also the Kafka key). */
  public static KeySelector<CleanEvent, String> keySelector() {
    return e -> e.runId + "|" + windowStart(e.eventTime) + "|" + e.eventType;
  }

  long finalAt(long windowStart) {
    return windowStart + WINDOW_MS + settings.latenessMs - 1;
  }

  @Override
  public void open(OpenContext openContext) {
    acc = getRuntimeContext().getState(new ValueStateDescriptor<>("window", Types.POJO(Acc.class)));
    sessions = getRuntimeContext().getMapState(new MapStateDescriptor<>("window-sessions", Types.STRING, Types.BOOLEAN));
    corrections = getRuntimeContext().getMetricGroup().counter("corrections_after_final");
    rows = getRuntimeContext().getMetricGroup().counter("window_rows_out");
  }

  @Override
  public void processElement(CleanEvent e, Context ctx, Collector<WindowRow> out) throws Exception {
    if (e.isProbe()) return;
    Acc a = acc.value();
    if (a == null) {
      a = new Acc();
      a.runId = e.runId;
      a.windowStart = windowStart(e.eventTime);
      a.eventType = e.eventType;
      long fin = finalAt(a.windowStart);
      ctx.timerService().registerEventTimeTimer(fin);
      ctx.timerService().registerEventTimeTimer(fin + settings.retentionMs);
    }
    a.eventCount++;
    a.amountCentsSum += e.amountCents == null ? 0 : e.amountCents;
    if (!sessions.contains(e.sessionId)) {
      sessions.put(e.sessionId, Boolean.TRUE);
      a.distinctSessions++;
    }
    if (a.finalEmitted) corrections.inc();
    if (!a.dirty) {
      a.dirty = true;
      ctx.timerService().registerProcessingTimeTimer(settings.nextEmitTick(ctx.timerService().currentProcessingTime()));
    }
    acc.update(a);
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<WindowRow> out) throws Exception {
    Acc a = acc.value();
    if (a == null) return;
    long fin = finalAt(a.windowStart);
    if (ctx.timeDomain() == TimeDomain.EVENT_TIME && timestamp >= fin + settings.retentionMs) {
      acc.clear();
      sessions.clear();
      return;
    }
    boolean watermarkFinal = ctx.timerService().currentWatermark() >= fin
        || (ctx.timeDomain() == TimeDomain.EVENT_TIME && timestamp >= fin);
    // A restore resets the watermark: once final, every later emission (a correction) stays final.
    boolean isFinal = a.finalEmitted || watermarkFinal;
    if (a.dirty || (isFinal && !a.finalEmitted)) {
      emit(a, isFinal, ctx.timerService().currentProcessingTime(), out);
      acc.update(a);
    }
  }

  private void emit(Acc a, boolean isFinal, long now, Collector<WindowRow> out) {
    a.version++;
    a.dirty = false;
    a.finalEmitted = isFinal;
    WindowRow r = new WindowRow();
    r.runId = a.runId;
    r.windowStart = a.windowStart;
    r.windowEnd = a.windowStart + WINDOW_MS;
    r.eventType = a.eventType;
    r.eventCount = a.eventCount;
    r.amountCentsSum = a.amountCentsSum;
    r.distinctSessions = a.distinctSessions;
    r.version = a.version;
    r.isFinal = isFinal;
    r.emittedAt = now;
    rows.inc();
    out.collect(r);
  }
}
