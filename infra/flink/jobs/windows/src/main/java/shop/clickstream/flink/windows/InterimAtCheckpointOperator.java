package shop.clickstream.flink.windows;

import java.util.HashSet;
import java.util.Set;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs an aggregator as {@link KeyedProcessOperator} does, remembers every key it feeds an event, and emits those
 * keys' interim rows right before each checkpoint barrier ({@link #prepareSnapshotPreBarrier}), instead of on emit
 * ticks. A key whose event changed nothing (the session aggregator ignores the probe's events) emits nothing.
 *
 * <p>Why at the barrier: the sinks are transactional, so a row becomes readable only when the checkpoint after it
 * commits. A row emitted just before the barrier is in that checkpoint's transaction; a tick's row waits up to one tick
 * for its emission and then for the next barrier. At the barrier a key changed many times in a checkpoint interval is
 * written once, not once a tick, and no reader can tell: the rows between two commits are never visible one by one.
 *
 * <p>Every changed key is emitted before the snapshot, so no snapshot holds a changed key, and the set of changed keys
 * (on the heap, not in state) is empty at every checkpoint: a restore loses nothing. State restored from a job that
 * used emit ticks can hold changed keys with their tick timers; those timers still fire and emit them.
 */
public final class InterimAtCheckpointOperator<K, IN, OUT> extends KeyedProcessOperator<K, IN, OUT> {
  private static final long serialVersionUID = 1L;

  /** The user function, the aggregator: the constructor's bound makes the cast safe. */
  private transient InterimRows<K, OUT> interim;
  private transient TimestampedCollector<OUT> out;
  /** Keys fed an event since the last barrier. */
  private transient Set<K> changedKeys;
  /** The operator's watermark, as its timers see it (Long.MIN_VALUE until the first, also after a restore). */
  private transient long watermark;

  public <F extends KeyedProcessFunction<K, IN, OUT> & InterimRows<K, OUT>> InterimAtCheckpointOperator(F aggregator) {
    super(aggregator);
  }

  @Override
  public void open() throws Exception {
    @SuppressWarnings("unchecked")
    InterimRows<K, OUT> aggregator = (InterimRows<K, OUT>) userFunction;
    interim = aggregator;
    interim.emitAtBarrier();
    super.open();
    out = new TimestampedCollector<>(output);
    changedKeys = new HashSet<>();
    watermark = Long.MIN_VALUE;
  }

  @Override
  public void processElement(StreamRecord<IN> element) throws Exception {
    super.processElement(element);
    @SuppressWarnings("unchecked")
    K key = (K) getCurrentKey(); // the key of this element, set by the task before processElement
    changedKeys.add(key);
  }

  @Override
  public void processWatermark(Watermark mark) throws Exception {
    super.processWatermark(mark);
    watermark = mark.getTimestamp();
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    emitChanged();
  }

  /** At the end of a bounded input (or a drain), the last changes are emitted as well. */
  @Override
  public void finish() throws Exception {
    emitChanged();
    super.finish();
  }

  private void emitChanged() throws Exception {
    long now = getProcessingTimeService().getCurrentProcessingTime();
    // Like a processing-time timer's rows: no record timestamp.
    out.eraseTimestamp();
    for (K key : changedKeys) {
      setCurrentKey(key);
      interim.emitChanged(key, watermark, now, out);
    }
    changedKeys.clear();
  }
}
