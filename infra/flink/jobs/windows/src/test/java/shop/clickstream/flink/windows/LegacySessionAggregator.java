package shop.clickstream.flink.windows;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import shop.clickstream.flink.windows.SessionAggregator.Session;

/**
 * The session operator as it was before the state serializer and timer changes (git history: SessionAggregator.java
 * before the issue #16 commit): one event-time timer per event for finality, one for retention, one emit tick, and a
 * reflection POJO list in state. Test-only: the reference that {@link SessionAggregatorEquivalenceTest} compares the
 * current operator with, and the writer of old-format state for the migration test.
 */
final class LegacySessionAggregator extends KeyedProcessFunction<Tuple2<String, String>, CleanEvent, SessionRow> {
  private static final long serialVersionUID = 1L;

  public static final long GAP_MS = 30_000;
  public static final String PAYMENT_SUCCEEDED = "payment_succeeded";

  private final AggregateSettings settings;
  /** All sessions of the key, sorted by start (a list typed explicitly, so Flink serializes it without Kryo). */
  private transient ValueState<List<Session>> state;
  private transient Counter retractions;
  private transient Counter corrections;
  private transient Counter rows;

  LegacySessionAggregator(AggregateSettings settings) {
    this.settings = settings;
  }

  /** Keyed by (run_id, session_id). */
  public static KeySelector<CleanEvent, Tuple2<String, String>> keySelector() {
    return new KeySelector<>() {
      private static final long serialVersionUID = 1L;

      @Override
      public Tuple2<String, String> getKey(CleanEvent e) {
        return Tuple2.of(e.runId, e.sessionId);
      }
    };
  }

  long finalAt(Session s) {
    return s.end + GAP_MS + settings.latenessMs - 1;
  }

  @Override
  public void open(OpenContext openContext) {
    TypeInformation<List<Session>> type = Types.LIST(Types.POJO(Session.class));
    state = getRuntimeContext().getState(new ValueStateDescriptor<>("sessions", type));
    retractions = getRuntimeContext().getMetricGroup().counter("session_retractions");
    corrections = getRuntimeContext().getMetricGroup().counter("corrections_after_final");
    rows = getRuntimeContext().getMetricGroup().counter("session_rows_out");
  }

  @Override
  public void processElement(CleanEvent e, Context ctx, Collector<SessionRow> out) throws Exception {
    if (e.isProbe()) return;
    List<Session> all = state.value();
    if (all == null) all = new ArrayList<>();
    long t = e.eventTime;
    Session merged = new Session();
    merged.start = t;
    merged.end = t;
    merged.eventCount = 1;
    boolean payment = PAYMENT_SUCCEEDED.equals(e.eventType);
    merged.revenueCents = payment && e.amountCents != null ? e.amountCents : 0;
    merged.converted = payment;

    List<Session> touched = new ArrayList<>();
    for (Session s : all) {
      if (t > s.start - GAP_MS && t < s.end + GAP_MS) touched.add(s);
    }
    for (Session s : touched) {
      merged.start = Math.min(merged.start, s.start);
      merged.end = Math.max(merged.end, s.end);
      merged.eventCount += s.eventCount;
      merged.revenueCents += s.revenueCents;
      merged.converted |= s.converted;
    }
    long now = ctx.timerService().currentProcessingTime();
    for (Session s : touched) {
      if (s.start == merged.start) {
        // The surviving key keeps its version sequence (and stays final once final: any change is a correction).
        merged.version = s.version;
        merged.finalEmitted = s.finalEmitted;
      } else if (s.version > 0) {
        retractions.inc();
        s.version++;
        out.collect(row(ctx.getCurrentKey(), s, true, true, now));
      }
    }
    if (merged.finalEmitted) corrections.inc();
    merged.dirty = true;
    all.removeAll(touched);
    all.add(merged);
    all.sort(Comparator.comparingLong(s -> s.start));
    state.update(all);

    long fin = finalAt(merged);
    ctx.timerService().registerEventTimeTimer(fin);
    ctx.timerService().registerEventTimeTimer(fin + settings.retentionMs);
    ctx.timerService().registerProcessingTimeTimer(settings.nextEmitTick(now));
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<SessionRow> out) throws Exception {
    List<Session> all = state.value();
    if (all == null) return;
    long watermark = ctx.timerService().currentWatermark();
    long now = ctx.timerService().currentProcessingTime();
    boolean changed = false;
    List<Session> expired = new ArrayList<>();
    for (Session s : all) {
      long fin = finalAt(s);
      if (watermark >= fin + settings.retentionMs) {
        expired.add(s);
        changed = true;
        continue;
      }
      boolean isFinal = s.finalEmitted || watermark >= fin;
      // Emit tick: every changed session. Watermark timer: only sessions that became final (or changed once final).
      boolean due = ctx.timeDomain() == TimeDomain.PROCESSING_TIME ? s.dirty : isFinal && (s.dirty || !s.finalEmitted);
      if (due) {
        s.version++;
        s.dirty = false;
        s.finalEmitted = isFinal;
        out.collect(row(ctx.getCurrentKey(), s, isFinal, false, now));
        changed = true;
      }
    }
    if (!changed) return;
    all.removeAll(expired);
    if (all.isEmpty()) state.clear();
    else state.update(all);
  }

  private SessionRow row(Tuple2<String, String> key, Session s, boolean isFinal, boolean retracted, long now) {
    SessionRow r = new SessionRow();
    r.runId = key.f0;
    r.sessionId = key.f1;
    r.sessionStart = s.start;
    r.sessionEnd = s.end;
    r.eventCount = s.eventCount;
    r.revenueCents = s.revenueCents;
    r.converted = s.converted;
    r.version = s.version;
    r.isFinal = isFinal;
    r.retracted = retracted;
    r.emittedAt = now;
    rows.inc();
    return r;
  }
}
