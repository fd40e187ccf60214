-- events.late as loaded: the same columns and key as events_clean (events.late carries the exact
-- events.clean record of each late event), so FINAL holds each late event once whatever was redelivered.
CREATE TABLE IF NOT EXISTS events_late
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
ORDER BY (run_id, event_id);
