-- Records of events.valid / events.clean that the loader could not decode (a contract bug upstream):
-- kept with their bytes and reason instead of being dropped or stalling the loader forever.
CREATE TABLE IF NOT EXISTS load_rejects
(
    kafka_topic String,
    kafka_partition UInt32,
    kafka_offset UInt64,
    kafka_timestamp Int64,
    run_id String,
    seq Int64,
    reason String,
    detail String,
    value_base64 String,
    inserted_at Int64
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMM(toDateTime(intDiv(kafka_timestamp, 1000)))
ORDER BY (kafka_topic, kafka_partition, kafka_offset);
