-- agg.sessions as loaded: one row per emission of a session, keyed on (run_id, session_id,
-- session_start). ReplacingMergeTree(version) keeps the highest version; a session merged into
-- another by an out-of-order event ends as a retracted row (retracted = 1), which readers drop
-- after FINAL. Partitioned by session_start, so every version of a key lands in the same partition.
CREATE TABLE IF NOT EXISTS agg_sessions
(
    run_id String,
    session_id String,
    session_start Int64,
    session_end Int64,
    event_count Int64,
    revenue_cents Int64,
    converted UInt8,
    version UInt64,
    is_final UInt8,
    retracted UInt8,
    emitted_at Int64,
    kafka_partition UInt32,
    kafka_offset UInt64,
    kafka_timestamp Int64,
    inserted_at Int64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(session_start, 1000)))
ORDER BY (run_id, session_id, session_start);
