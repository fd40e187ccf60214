-- events.valid as loaded: one row per Kafka record of the valid topic, so the table mirrors the topic.
-- Key = the record's identity (run_id, seq, kafka_partition, kafka_offset): FINAL collapses only the
-- loader's own at-least-once redeliveries (same record, same offset), while an event written twice
-- upstream (two offsets) stays visible as two rows for the reconciler. Times are epoch ms (Int64):
-- ClickHouse 18.16 has no DateTime64. Works unchanged on 18.16 and current ClickHouse.
CREATE TABLE IF NOT EXISTS events_valid
(
    run_id String,
    seq UInt64,
    event_id String,
    event_type String,
    event_time Int64,
    ingest_time Nullable(Int64),
    session_id String,
    user_id Nullable(String),
    page Nullable(String),
    product_id Nullable(String),
    quantity Nullable(Int32),
    amount_cents Nullable(Int64),
    currency Nullable(String),
    device Nullable(String),
    kafka_topic String,
    kafka_partition UInt32,
    kafka_offset UInt64,
    kafka_timestamp Int64,
    inserted_at Int64
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMM(toDateTime(intDiv(event_time, 1000)))
ORDER BY (run_id, seq, kafka_partition, kafka_offset);
