package shop.clickstream.flink.windows;

import java.util.HashSet;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import shop.clickstream.flink.support.BulkStringSerializer;

/**
 * 10 s tumbling windows on event_time, keyed by {@code <run_id>|<window_start>|<event_type>} (the agg.windows key), over
 * on-time events. Probe events (run_id "probe-...") count under their own run's keys, which no business read includes
 * (the dashboard excludes the prefix, the reconciler reads one run): their rows are how the freshness probe sees the
 * windows layer move. Every on-time event is counted whenever it arrives:
 * contents never depend on the watermark. The watermark (ingest time, see {@link WindowsJob}) decides only {@code is_final}.
 *
 * <p>Emissions: a key touched by an event is emitted right before the next checkpoint barrier (through {@link
 * InterimAtCheckpointOperator}; or, run by Flink's own operator, at the next emit tick, processing time,
 * coalesced), and once with {@code is_final=true} when the watermark reaches {@code window_end + L - 1}: no on-time
 * event of the window can then still come, since on time means {@code ingest_time <= event_time + L <= window_end - 1
 * + L}. Each emission carries
 * {@code version} = previous + 1, kept in checkpointed state, so a replay after a restore continues the same sequence
 * (anything emitted after the restored checkpoint was in an aborted Kafka transaction).
 *
 * <p>State is NOT cleared at finality: an event that breaks the watermark bound still finds the full aggregate and
 * produces a correct correction (higher version, is_final=true, counted in {@code corrections_after_final}). It is
 * cleared when the watermark reaches finality + {@code retentionMs} (default 15 min of ingest time), far beyond any
 * recovery's disorder.
 *
 * <p>The distinct sessions of a key are most of the job's state (one per session, window and type, kept through the
 * retention). On the heap backend they are one {@link SessionIdSet} per key ({@link SessionSets#COMPACT}); on RocksDB
 * or with the changelog, which read or write a value whole at every update, a {@code MapState} of session ids
 * ({@link SessionSets#MAP}, one entry per update). Each form folds the other in at a key's first event after a start, so a job moved
 * between backends, or restored from a checkpoint taken before the compact form existed, carries its sessions over.
 */
public final class WindowAggregator extends KeyedProcessFunction<String, CleanEvent, WindowRow>
    implements InterimRows<String, WindowRow> {
  private static final long serialVersionUID = 1L;

  public static final long WINDOW_MS = 10_000;

  /** Per-key aggregate and emission bookkeeping; in state through {@link WindowAccSerializer}. */
  public static class Acc {
    public String runId;
    public long windowStart;
    public String eventType;
    public long eventCount;
    public long amountCentsSum;
    public long distinctSessions;
    /** Version of the last emission; 0 = never emitted. */
    public long version;
    public boolean finalEmitted;
    /** Changed since the last emission. */
    public boolean dirty;

    public Acc() {}
  }

  /** Where a key's distinct sessions are kept. */
  public enum SessionSets {
    /** One {@link SessionIdSet} per key, in a ValueState: for the heap backend. */
    COMPACT,
    /** A MapState of session ids: for RocksDB. */
    MAP;

    /**
     * The form for a state backend by its Flink name: compact only on the heap without the changelog, since RocksDB
     * and the changelog both write a value whole at every update.
     */
    public static SessionSets forBackend(String stateBackend, boolean changelog) {
      return stateBackend.equals("hashmap") && !changelog ? COMPACT : MAP;
    }
  }

  private final AggregateSettings settings;
  private final SessionSets form;
  private transient ValueState<Acc> acc;
  private transient ValueState<SessionIdSet> sessionSet;
  private transient MapState<String, Boolean> sessions;
  /** Keys whose other form was already folded in since this instance started. */
  private transient Set<String> folded;
  /** Set by {@link InterimAtCheckpointOperator}: interim rows at the barrier, not on emit ticks. */
  private transient boolean atBarrier;
  private transient Counter corrections;
  private transient Counter afterRetention;
  private transient Counter rows;

  public WindowAggregator(AggregateSettings settings) {
    this(settings, SessionSets.COMPACT);
  }

  public WindowAggregator(AggregateSettings settings, SessionSets form) {
    this.settings = settings;
    this.form = form;
  }

  public static long windowStart(long eventTime) {
    return Math.floorDiv(eventTime, WINDOW_MS) * WINDOW_MS;
  }

  /** The key selector of this operator (also the Kafka key). */
  public static KeySelector<CleanEvent, String> keySelector() {
    return e -> e.runId + "|" + windowStart(e.eventTime) + "|" + e.eventType;
  }

  /** The key's type: a string in {@code StringSerializer}'s format, written in one call ({@link BulkStringSerializer}). */
  public static TypeInformation<String> keyType() {
    return BulkStringSerializer.TYPE;
  }

  long finalAt(long windowStart) {
    return windowStart + WINDOW_MS + settings.latenessMs - 1;
  }

  @Override
  public void open(OpenContext openContext) {
    acc = getRuntimeContext().getState(new ValueStateDescriptor<>("window", WindowAccSerializer.INSTANCE));
    sessionSet = getRuntimeContext().getState(new ValueStateDescriptor<>("window-session-set", SessionIdSetSerializer.INSTANCE));
    sessions = getRuntimeContext().getMapState(new MapStateDescriptor<>("window-sessions", Types.STRING, Types.BOOLEAN));
    folded = new HashSet<>();
    corrections = getRuntimeContext().getMetricGroup().counter("corrections_after_final");
    afterRetention = getRuntimeContext().getMetricGroup().counter("events_after_retention");
    rows = getRuntimeContext().getMetricGroup().counter("window_rows_out");
  }

  @Override
  public void processElement(CleanEvent e, Context ctx, Collector<WindowRow> out) throws Exception {
    Acc a = acc.value();
    if (a == null) {
      a = new Acc();
      a.runId = e.runId;
      a.windowStart = windowStart(e.eventTime);
      a.eventType = e.eventType;
      long fin = finalAt(a.windowStart);
      // The window's state, if it had any, is gone: this row will lack the events counted before (docs/FLINK.md,
      // "State lifetime"). Counted so that it is seen; the reconciler finds the window inexact.
      if (ctx.timerService().currentWatermark() >= fin + settings.retentionMs) afterRetention.inc();
      ctx.timerService().registerEventTimeTimer(fin);
      ctx.timerService().registerEventTimeTimer(fin + settings.retentionMs);
      folded.add(ctx.getCurrentKey());
    } else if (folded.add(ctx.getCurrentKey())) {
      foldOtherForm();
    }
    a.eventCount++;
    a.amountCentsSum += e.amountCents == null ? 0 : e.amountCents;
    if (addSession(e.sessionId)) a.distinctSessions++;
    if (a.finalEmitted) corrections.inc();
    if (!atBarrier && !a.dirty) {
      ctx.timerService().registerProcessingTimeTimer(settings.nextEmitTick(ctx.timerService().currentProcessingTime()));
    }
    a.dirty = true;
    acc.update(a);
  }

  /** {@code events_after_retention} of this instance (for tests). */
  long eventsAfterRetention() {
    return afterRetention.getCount();
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<WindowRow> out) throws Exception {
    Acc a = acc.value();
    if (a == null) return;
    long fin = finalAt(a.windowStart);
    if (ctx.timeDomain() == TimeDomain.EVENT_TIME && timestamp >= fin + settings.retentionMs) {
      acc.clear();
      sessionSet.clear();
      sessions.clear();
      folded.remove(ctx.getCurrentKey());
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

  @Override
  public void emitAtBarrier() {
    atBarrier = true;
  }

  @Override
  public void emitChanged(String key, long watermark, long now, Collector<WindowRow> out) throws Exception {
    Acc a = acc.value();
    if (a == null || !a.dirty) return;
    emit(a, a.finalEmitted || watermark >= finalAt(a.windowStart), now, out);
    acc.update(a);
  }

  /** Adds a session id to the current key's set; true when it is the key's first event of that session. */
  private boolean addSession(String sessionId) throws Exception {
    if (form == SessionSets.MAP) {
      if (sessions.contains(sessionId)) return false;
      sessions.put(sessionId, Boolean.TRUE);
      return true;
    }
    SessionIdSet set = sessionSet.value();
    if (set == null) set = new SessionIdSet();
    boolean added = set.add(sessionId);
    if (added) sessionSet.update(set);
    return added;
  }

  /** Moves the current key's sessions from the form not in use into the one in use (already counted in the aggregate). */
  private void foldOtherForm() throws Exception {
    if (form == SessionSets.MAP) {
      SessionIdSet set = sessionSet.value();
      if (set == null) return;
      for (String id : set.ids()) sessions.put(id, Boolean.TRUE);
      sessionSet.clear();
    } else {
      if (sessions.isEmpty()) return;
      SessionIdSet set = sessionSet.value();
      if (set == null) set = new SessionIdSet();
      for (String id : sessions.keys()) set.add(id);
      sessionSet.update(set);
      sessions.clear();
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
