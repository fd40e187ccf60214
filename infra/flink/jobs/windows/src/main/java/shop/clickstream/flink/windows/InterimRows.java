package shop.clickstream.flink.windows;

import java.util.Set;
import org.apache.flink.util.Collector;

/**
 * An aggregator whose interim rows {@link InterimAtCheckpointOperator} emits right before each checkpoint barrier: it
 * remembers the keys it changed, and emits a key's changed rows when asked.
 */
interface InterimRows<K, OUT> {
  /**
   * Called by the operator when it opens, before the aggregator's own {@code open}: from then on the aggregator
   * remembers the keys it changes instead of registering emit ticks. Without this call it emits on ticks.
   */
  void emitAtBarrier();

  /** The keys changed since the last call (handed over: the aggregator starts a new set). */
  Set<K> takeChangedKeys();

  /**
   * Emits the changed rows of {@code key}, which the caller has made the current key: interim, or final when the
   * watermark has reached their finality. A key whose state is gone or has no change emits nothing.
   */
  void emitChanged(K key, long watermark, long now, Collector<OUT> out) throws Exception;
}
