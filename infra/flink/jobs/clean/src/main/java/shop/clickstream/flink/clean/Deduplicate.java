package shop.clickstream.flink.clean;

import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Keyed by event_id: passes the first copy of each event and drops later ones. The "seen" flag lives in checkpointed
 * keyed state, so a recovery rewinds it together with the source offsets and the sinks' open transactions.
 *
 * <p>The TTL counts from the first copy (written on create, not refreshed on read) and expired flags are never
 * returned, so the state is bounded by the event rate times the TTL; a duplicate later than the TTL would pass,
 * which is why the TTL must exceed the longest duplicate delay the generator injects.
 */
public final class Deduplicate extends KeyedProcessFunction<String, ValidRecord, ValidRecord> {
  private static final long serialVersionUID = 1L;

  private final long ttlMs;
  private transient ValueState<Boolean> seen;
  private transient Counter duplicatesDropped;
  private transient Counter recordsOut;

  public Deduplicate(long ttlMs) {
    this.ttlMs = ttlMs;
  }

  @Override
  public void open(OpenContext openContext) {
    StateTtlConfig ttl = StateTtlConfig.newBuilder(Duration.ofMillis(ttlMs))
        .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
        .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
        .build();
    ValueStateDescriptor<Boolean> descriptor = new ValueStateDescriptor<>("seen", Types.BOOLEAN);
    descriptor.enableTimeToLive(ttl);
    seen = getRuntimeContext().getState(descriptor);
    duplicatesDropped = getRuntimeContext().getMetricGroup().counter("duplicates_dropped");
    recordsOut = getRuntimeContext().getMetricGroup().counter("clean_records_out");
  }

  @Override
  public void processElement(ValidRecord record, Context ctx, Collector<ValidRecord> out) throws Exception {
    if (seen.value() != null) {
      duplicatesDropped.inc();
      return;
    }
    seen.update(Boolean.TRUE);
    recordsOut.inc();
    out.collect(record);
  }
}
