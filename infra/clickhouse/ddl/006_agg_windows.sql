-- agg.windows as loaded: one row per emission of a window, keyed on the window (run_id, window_start,
-- event_type). ReplacingMergeTree(version) keeps the highest version, so a redelivered or replayed
-- emission (same version) and every superseded one collapse; read with FINAL. Flink computes the
-- aggregate and ClickHouse only stores it: no materialized view (a view would count redeliveries).
-- Partitioned by window_start, so every version of a key lands in the same partition.
CREATE TABLE IF NOT EXISTS agg_windows
(
    run_id String,
    window_start Int64,
    window_end Int64,
    event_type String,
    event_count Int64,
    amount_cents_sum Int64,
    distinct_sessions Int64,
    version UInt64,
    is_final UInt8,
    emitted_at Int64,
    kafka_partition UInt32,
    kafka_offset UInt64,
    kafka_timestamp Int64,
    inserted_at Int64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(window_start, 1000)))
ORDER BY (run_id, window_start, event_type);
