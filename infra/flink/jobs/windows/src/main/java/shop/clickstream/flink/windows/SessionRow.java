package shop.clickstream.flink.windows;

/** One emission of an agg.sessions row (fields as in libs/contracts/src/aggregate/schemas/session-aggregate-v1.avsc). */
public class SessionRow {
  public String runId;
  public String sessionId;
  public long sessionStart;
  public long sessionEnd;
  public long eventCount;
  public long revenueCents;
  public boolean converted;
  public long version;
  public boolean isFinal;
  public boolean retracted;
  public long emittedAt;

  public SessionRow() {}

  /** The Kafka key of the contract: {@code <run_id>|<session_id>|<session_start>}. */
  public String kafkaKey() {
    return runId + "|" + sessionId + "|" + sessionStart;
  }

  @Override
  public String toString() {
    return kafkaKey() + " end=" + sessionEnd + " n=" + eventCount + " rev=" + revenueCents + (converted ? " converted" : "")
        + " v=" + version + (isFinal ? " final" : "") + (retracted ? " RETRACTED" : "");
  }
}
