package shop.clickstream.flink.windows;

import java.io.Serializable;

/** The timing settings the window and session operators share. */
public final class AggregateSettings implements Serializable {
  private static final long serialVersionUID = 1L;

  /** L of the lateness rule (ms); also how long after a window's end an on-time event can still arrive. */
  public final long latenessMs;
  /**
   * Interim (non-final) rows of a changed key are emitted right before each checkpoint barrier (true: the job's default,
   * through {@link InterimAtCheckpointOperator}), or on emit ticks of {@link #emitIntervalMs} (false). Read only where
   * the operator is chosen ({@link WindowsJob#aggregate}); the operator tells the aggregator.
   */
  public final boolean interimAtCheckpoint;
  /** With emit ticks: interim rows of a changed key are emitted at most once per interval (processing time). */
  public final long emitIntervalMs;
  /** State of a window or session is kept this long (ingest time) after it became final. */
  public final long retentionMs;

  /** Interim rows on emit ticks. */
  public AggregateSettings(long latenessMs, long emitIntervalMs, long retentionMs) {
    this(latenessMs, false, emitIntervalMs, retentionMs);
  }

  public AggregateSettings(long latenessMs, boolean interimAtCheckpoint, long emitIntervalMs, long retentionMs) {
    if (latenessMs < 0 || emitIntervalMs < 1 || retentionMs < 1) {
      throw new IllegalArgumentException("lateness >= 0, emit interval >= 1 and retention >= 1 ms expected");
    }
    this.latenessMs = latenessMs;
    this.interimAtCheckpoint = interimAtCheckpoint;
    this.emitIntervalMs = emitIntervalMs;
    this.retentionMs = retentionMs;
  }

  /** The next emit tick strictly after {@code now}, aligned to the interval so that timers coalesce. */
  public long nextEmitTick(long now) {
    return (Math.floorDiv(now, emitIntervalMs) + 1) * emitIntervalMs;
  }
}
