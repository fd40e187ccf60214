package shop.clickstream.flink.windows;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import shop.clickstream.flink.support.BulkStringSerializer;

/**
 * Event-time sessions with a 30 s gap per {@code (run_id, session_id)}, over on-time events, with its own session list
 * in keyed state (not Flink's merging windows, whose merges cannot retract what was already emitted). Probe events
 * (run_id "probe-...") are ignored.
 *
 * <p>An event at t joins every session s with {@code s.start - gap < t < s.end + gap} (Flink EventTimeSessionWindows
 * semantics: a gap of >= 30 s starts a new session); if it touches several, they merge. A session's key is its start,
 * so when a merge or an earlier event moves the start, the old key is re-emitted once with {@code retracted=true},
 * {@code is_final=true} (that key can never come back: its first event now belongs to a session that starts earlier,
 * and sessions only grow) and its version + 1. A key never emitted needs no retraction.
 *
 * <p>{@code is_final} once the ingest-time watermark reaches {@code session_end + gap + L - 1}: an on-time event that
 * could still touch the session has {@code event_time < end + gap}, hence {@code ingest_time <= end + gap + L - 1}.
 * Versions, dirty flags and finality live in checkpointed state, as in {@link WindowAggregator}, and changed sessions
 * are emitted as there: right before each checkpoint barrier ({@link InterimAtCheckpointOperator}) or on emit ticks.
 * A session's state is kept for {@code retentionMs} of ingest time after it became final, then dropped.
 */
public final class SessionAggregator extends KeyedProcessFunction<Tuple2<String, String>, CleanEvent, SessionRow>
    implements InterimRows<Tuple2<String, String>, SessionRow> {
  private static final long serialVersionUID = 1L;

  public static final long GAP_MS = 30_000;
  public static final String PAYMENT_SUCCEEDED = "payment_succeeded";

  /** One session of the key; in state through {@link SessionListSerializer}. */
  public static class Session {
    public long start;
    public long end;
    public long eventCount;
    public long revenueCents;
    public boolean converted;
    /** Version of the last emission of this start's key; 0 = never emitted. */
    public long version;
    public boolean finalEmitted;
    public boolean dirty;

    public Session() {}
  }

  private final AggregateSettings settings;
  /** All sessions of the key, sorted by start; {@link SessionListSerializer} (no Kryo, no reflection). */
  private transient ValueState<List<Session>> state;
  private transient Counter retractions;
  private transient Counter corrections;
  private transient Counter afterRetention;
  private transient Counter rows;
  /** Set by {@link InterimAtCheckpointOperator}: interim rows at the barrier, not on emit ticks. */
  private transient boolean atBarrier;

  public SessionAggregator(AggregateSettings settings) {
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

  /**
   * The key's type: two strings in {@code StringSerializer}'s format, each written in one call ({@link
   * BulkStringSerializer}); the heap backend writes every key twice per checkpoint (its state, its timer).
   */
  public static TypeInformation<Tuple2<String, String>> keyType() {
    return new TupleTypeInfo<>(BulkStringSerializer.TYPE, BulkStringSerializer.TYPE);
  }

  long finalAt(Session s) {
    return s.end + GAP_MS + settings.latenessMs - 1;
  }

  @Override
  public void open(OpenContext openContext) {
    state = getRuntimeContext().getState(new ValueStateDescriptor<>("sessions", SessionListSerializer.INSTANCE));
    retractions = getRuntimeContext().getMetricGroup().counter("session_retractions");
    corrections = getRuntimeContext().getMetricGroup().counter("corrections_after_final");
    afterRetention = getRuntimeContext().getMetricGroup().counter("events_after_retention");
    rows = getRuntimeContext().getMetricGroup().counter("session_rows_out");
  }

  @Override
  public void processElement(CleanEvent e, Context ctx, Collector<SessionRow> out) throws Exception {
    if (e.isProbe()) return;
    List<Session> all = state.value();
    if (all == null) all = new ArrayList<>();
    // On emit ticks, a dirty session means a tick is pending (every tick emits all of them), so one is registered only
    // when none is. At the barrier no tick is needed.
    boolean needsTick = !atBarrier;
    for (Session s : all) needsTick &= !s.dirty;
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
    // A session this event could join ends after t - GAP, so it is final from t + L - 1 on at the earliest: past that
    // plus the retention, such a session may have been dropped, and this event would start its session anew
    // (docs/FLINK.md, "State lifetime"). Counted so that it is seen.
    if (touched.isEmpty() && ctx.timerService().currentWatermark() >= t + settings.latenessMs - 1 + settings.retentionMs) {
      afterRetention.inc();
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

    registerTimers(merged, touched, ctx.timerService(), now, needsTick);
  }

  /**
   * Timers of a changed session. The job used to register three per event (finality, retention, emit tick), each a
   * RocksDB write, and each stale one fired later for a state read. Now a growing session registers none: invariants
   * (kept by {@link #onTimer}): a session that is not final has an event-time timer pending at or before
   * {@link #finalAt}, which, when it fires early, moves on to the session's finality then; a session gets its
   * retention timer once the watermark has reached its finality; a dirty session has an emit tick pending.
   */
  private void registerTimers(Session merged, List<Session> touched, TimerService timers, long now, boolean needsTick) {
    // A touched session that is not final has its timer pending, at or before its finality, so at or before the merged
    // one's. A correction of a final session registers it again: it fires at the next watermark (emits it as final).
    boolean finPending = false;
    for (Session s : touched) finPending |= !s.finalEmitted;
    if (!finPending || merged.finalEmitted) timers.registerEventTimeTimer(finalAt(merged));
    if (needsTick) timers.registerProcessingTimeTimer(settings.nextEmitTick(now));
  }

  /** {@code events_after_retention} of this instance (for tests). */
  long eventsAfterRetention() {
    return afterRetention.getCount();
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
      // The watermark can pass a session's finality and its retention in one step: after a long backlog, the next
      // records of a partition (the probe's, say) carry an ingest time minutes ahead. Such a session is emitted final
      // (if it changed or never was final) before its state goes; dropping it first lost its final row and, for a
      // session whose first emit tick had not come yet, the session itself.
      boolean expires = watermark >= fin + settings.retentionMs;
      if (!expires && ctx.timeDomain() == TimeDomain.EVENT_TIME) {
        // Not final yet: the timer chases the session's finality (registered again if already there: a no-op). Final:
        // from now on it waits for its retention timer (registered again on later firings: a no-op).
        ctx.timerService().registerEventTimeTimer(watermark < fin ? fin : fin + settings.retentionMs);
      }
      boolean isFinal = s.finalEmitted || watermark >= fin;
      // Emit tick: every changed session. Watermark timer: only sessions that became final (or changed once final).
      boolean due = expires || ctx.timeDomain() == TimeDomain.EVENT_TIME
          ? isFinal && (s.dirty || !s.finalEmitted)
          : s.dirty;
      if (due) {
        emit(ctx.getCurrentKey(), s, isFinal, now, out);
        changed = true;
      }
      if (expires) {
        expired.add(s);
        changed = true;
      }
    }
    if (!changed) return;
    all.removeAll(expired);
    if (all.isEmpty()) state.clear();
    else state.update(all);
  }

  @Override
  public void emitAtBarrier() {
    atBarrier = true;
  }

  /** Every changed session of the key, as an emit tick would; expiry stays with the event-time timers. */
  @Override
  public void emitChanged(Tuple2<String, String> key, long watermark, long now, Collector<SessionRow> out)
      throws Exception {
    List<Session> all = state.value();
    if (all == null) return;
    boolean emitted = false;
    for (Session s : all) {
      if (!s.dirty) continue;
      emit(key, s, s.finalEmitted || watermark >= finalAt(s), now, out);
      emitted = true;
    }
    if (emitted) state.update(all);
  }

  private void emit(Tuple2<String, String> key, Session s, boolean isFinal, long now, Collector<SessionRow> out) {
    s.version++;
    s.dirty = false;
    s.finalEmitted = isFinal;
    out.collect(row(key, s, isFinal, false, now));
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
