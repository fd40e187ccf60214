package shop.clickstream.flink.clean;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Holds the rows bound for Iceberg and lets them through at most once per interval, just before a checkpoint barrier.
 *
 * <p>The Iceberg sink writes whatever reached it into new files at every checkpoint and commits them as a snapshot
 * when the checkpoint completes, and Flink has one checkpoint interval per job. With this operator in front of it, the
 * job can checkpoint every second, so that the Kafka sink makes events.clean visible within about a second, while
 * Iceberg still gets one snapshot (one Parquet file per subtask) per interval: checkpoints in between reach the sink
 * with nothing to write, and the Iceberg committer makes no snapshot for them.
 *
 * <p>Exactly once: the held rows are operator state. Rows are let through only in {@link #prepareSnapshotPreBarrier},
 * that is, ahead of the barrier of checkpoint n, so they are in the Iceberg writer's files of checkpoint n and no
 * longer in this operator's snapshot of checkpoint n. Every checkpoint therefore holds each row in exactly one of the
 * two places; a restore from it re-holds what was held and lets it through at the first checkpoint.
 */
public final class IcebergCadence<T> extends AbstractStreamOperator<T> implements OneInputStreamOperator<T, T>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  private final TypeInformation<T> type;
  private final Schedule schedule;

  private transient ListState<T> held;
  private transient StreamRecord<T> out;

  /**
   * When held rows are due: at the first checkpoint in each interval of wall-clock time (multiples of {@code intervalMs}
   * since the epoch); with 0, at every checkpoint (the operator then only passes rows on, and stays in the job so that a
   * checkpoint taken with a longer interval restores into it without losing what it held).
   *
   * <p>Aligned to the clock, not counted from each subtask's own last release: the barriers of one checkpoint reach all
   * subtasks within milliseconds, so they all release at the same checkpoint and the committer makes one snapshot per
   * interval. Counted per subtask, their releases drifted onto neighbouring checkpoints: two snapshots a second apart.
   */
  public static final class Schedule implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final long intervalMs;
    private long lastInterval = Long.MIN_VALUE;

    public Schedule(long intervalMs) {
      if (intervalMs < 0) throw new IllegalArgumentException("interval must not be negative, was " + intervalMs);
      this.intervalMs = intervalMs;
    }

    /** Whether a checkpoint at {@code nowMs} lets the held rows through. */
    public boolean releaseAt(long nowMs) {
      if (intervalMs == 0) return true;
      // The first checkpoint after a (re)start releases too: what a restore brought back has waited long enough.
      long interval = Math.floorDiv(nowMs, intervalMs);
      if (interval == lastInterval) return false;
      lastInterval = interval;
      return true;
    }
  }

  public IcebergCadence(TypeInformation<T> type, long intervalMs) {
    this.type = type;
    this.schedule = new Schedule(intervalMs);
    // Chained between the row mapper and the Iceberg writer (same parallelism): no serialization between them.
    setChainingStrategy(ChainingStrategy.ALWAYS);
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    held = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("held-for-iceberg", type));
    out = new StreamRecord<>(null);
  }

  @Override
  public void processElement(StreamRecord<T> element) throws Exception {
    held.add(element.getValue());
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    if (schedule.releaseAt(getProcessingTimeService().getCurrentProcessingTime())) release();
  }

  /** A bounded input (or a stop with --drain) ends: everything held goes to the sink's final commit. */
  @Override
  public void endInput() throws Exception {
    release();
  }

  private void release() throws Exception {
    for (T row : held.get()) output.collect(out.replace(row));
    held.clear();
  }
}
