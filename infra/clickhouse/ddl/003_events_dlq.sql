-- events.dlq as loaded: one row per dead letter, keyed like events_valid on the record's identity in
-- the DLQ topic, so a poison record dead-lettered twice upstream stays visible. run_id and seq come
-- from the cs-run-id / cs-seq headers ('' and -1 when absent or garbled); the original bytes are
-- kept as base64 (value_is_null tells a null value from an empty one).
CREATE TABLE IF NOT EXISTS events_dlq
(
    run_id String,
    seq Int64,
    reason String,
    detail String,
    source_topic String,
    source_partition Int32,
    source_offset Int64,
    value_base64 String,
    value_bytes UInt32,
    value_is_null UInt8,
    kafka_topic String,
    kafka_partition UInt32,
    kafka_offset UInt64,
    kafka_timestamp Int64,
    inserted_at Int64
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMM(toDateTime(intDiv(kafka_timestamp, 1000)))
ORDER BY (run_id, seq, kafka_partition, kafka_offset);
