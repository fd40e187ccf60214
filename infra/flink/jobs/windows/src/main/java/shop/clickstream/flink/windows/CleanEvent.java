package shop.clickstream.flink.windows;

import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One events.clean record: the original Kafka key, value bytes, headers and partition (re-emitted unchanged on
 * events.late) plus the decoded fields that lateness, windows and sessions need.
 *
 * <p>Public fields and a no-arg constructor; between tasks it travels through {@link CleanEventSerializer} (named by
 * the annotation, so every operator of the job uses it), not Kryo and not Flink's reflective POJO serializer.
 */
@TypeInfo(CleanEventSerializer.TypeInfoFactoryImpl.class)
public class CleanEvent {
  // Kafka record as read from events.clean.
  public byte[] key;
  public byte[] value;
  public String[] headerKeys;
  public byte[][] headerValues;
  public int partition;
  /** Kafka record timestamp on events.clean (the clean job keeps the events.valid timestamp). */
  public long timestamp;

  // Decoded event (canonical v2 schema); times are epoch milliseconds.
  public String eventId;
  public long seq;
  public String runId;
  public String eventType;
  public long eventTime;
  public String sessionId;
  public Long amountCents;
  /** The gatekeeper's stamp of the raw record's broker time; decides lateness and drives the watermark. */
  public long ingestTime;

  public CleanEvent() {}

  /** Generator's probe run ids start with this (contracts: PROBE_RUN_PREFIX); they never count in aggregates. */
  public static final String PROBE_RUN_PREFIX = "probe-";

  public boolean isProbe() {
    return runId != null && runId.startsWith(PROBE_RUN_PREFIX);
  }
}
