package shop.clickstream.flink.windows;

/** One emission of an agg.windows row (fields as in libs/contracts/src/aggregate/schemas/window-aggregate-v1.avsc). */
public class WindowRow {
  public String runId;
  public long windowStart;
  public long windowEnd;
  public String eventType;
  public long eventCount;
  public long amountCentsSum;
  public long distinctSessions;
  public long version;
  public boolean isFinal;
  public long emittedAt;

  public WindowRow() {}

  /** The Kafka key of the contract: {@code <run_id>|<window_start>|<event_type>}. */
  public String kafkaKey() {
    return runId + "|" + windowStart + "|" + eventType;
  }

  @Override
  public String toString() {
    return kafkaKey() + " n=" + eventCount + " sum=" + amountCentsSum + " sessions=" + distinctSessions + " v=" + version
        + (isFinal ? " final" : "");
  }
}
