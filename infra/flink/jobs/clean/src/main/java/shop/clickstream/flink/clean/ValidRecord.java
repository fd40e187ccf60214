package shop.clickstream.flink.clean;

/**
 * One events.valid record: its original Kafka key, value bytes, headers and position (re-emitted byte for byte on
 * events.clean), plus the decoded event fields that the dedup key and the Iceberg row need.
 *
 * <p>A Flink POJO (public fields, no-arg constructor) so that it is serialized without Kryo.
 */
public class ValidRecord {
  // Kafka record as read.
  public byte[] key;
  public byte[] value;
  public String[] headerKeys;
  public byte[][] headerValues;
  public int partition;
  public long offset;
  /** Kafka record timestamp of the valid record (the gatekeeper's ingest time). */
  public long timestamp;

  // Decoded event (canonical v2 schema); times are epoch milliseconds.
  public String eventId;
  public long seq;
  public String runId;
  public String eventType;
  public long eventTime;
  public String sessionId;
  public String userId;
  public String page;
  public String productId;
  public Integer quantity;
  public Long amountCents;
  public String currency;
  public String device;
  public Long ingestTime;

  public ValidRecord() {}
}
