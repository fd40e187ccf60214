package shop.clickstream.flink.windows;

import org.apache.flink.util.Collector;

/**
 * An aggregator whose interim rows {@link InterimAtCheckpointOperator} emits right before each checkpoint barrier: the
 * operator remembers the keys it fed, and asks the aggregator for each one's changed rows.
 */
interface InterimRows<K, OUT> {
  /**
   * Called by the operator when it opens, before the aggregator's own {@code open}: from then on the aggregator
   * registers no emit ticks. Without this call it emits on ticks.
   */
  void emitAtBarrier();

  /**
   * Emits the changed rows of {@code key}, which the caller has made the current key: interim, or final when the
   * watermark has reached their finality. A key whose state is gone or has no change emits nothing.
   */
  void emitChanged(K key, long watermark, long now, Collector<OUT> out) throws Exception;
}
