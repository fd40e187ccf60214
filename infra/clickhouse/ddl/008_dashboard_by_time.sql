-- Time-ordered copies for the dashboard's range reads (issue #14). Each is a narrow copy of a
-- source table, ordered by its time column first so that a range reads only the granules of the
-- range, and fed by a materialized view that copies every inserted block row for row.
-- The views copy, they never aggregate (they may add a column computed from the row alone): a block that the loader inserts twice (a redelivery)
-- gives the same rows twice, which the copy's key collapses on merge exactly as in the source,
-- and every dashboard read is already insensitive to a not-yet-merged duplicate (uniqExact of the
-- key, one row per event, argMax per window). A view that summed or counted would count the
-- redelivery twice for ever (the materialized-view trap, docs/CLICKHOUSE.md).
-- Each ORDER BY = (time column, then the source's identity), so it is also the dedup key: every
-- copy of a row has the same time and lands in the same month partition.
-- A view fires on inserts only: rows that were in a source table before its view existed are
-- copied once by infra/clickhouse/backfill/008_dashboard_by_time.sql (idempotent).

-- Two columns of events_by_time are computed from the row, by the view (18.16 does not compute a
-- target's MATERIALIZED columns for a view's block), so that the funnel reads no strings but one:
--   funnel_step = the event's index in the funnel (0 page_view .. 4 payment_succeeded), -1 for the rest;
--   session_key = length(run_id) ':' run_id session_id: injective, one String key per session of a
--   run, so the funnel groups by one key instead of two (half its time on 18.16).
-- The funnel's steps are FUNNEL_STEPS of libs/warehouse (a unit spec checks that they match).

CREATE TABLE IF NOT EXISTS events_by_time
(
    event_time Int64,
    run_id String,
    event_id String,
    session_id String,
    event_type String,
    product_id Nullable(String),
    amount_cents Nullable(Int64),
    inserted_at Int64,
    funnel_step Int8,
    session_key String
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMM(toDateTime(intDiv(event_time, 1000)))
ORDER BY (event_time, run_id, event_id)
SETTINGS index_granularity = 1024;

CREATE MATERIALIZED VIEW IF NOT EXISTS events_by_time_mv TO events_by_time AS
SELECT event_time, run_id, event_id, session_id, event_type, product_id, amount_cents, inserted_at,
    toInt8(indexOf(['page_view', 'product_view', 'add_to_cart', 'checkout_started', 'payment_succeeded'], event_type) - 1) AS funnel_step,
    concat(toString(length(run_id)), ':', run_id, session_id) AS session_key
FROM events_clean;

CREATE TABLE IF NOT EXISTS events_dlq_by_time
(
    kafka_timestamp Int64,
    kafka_topic String,
    kafka_partition UInt32,
    kafka_offset UInt64,
    run_id String,
    reason String,
    inserted_at Int64
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMM(toDateTime(intDiv(kafka_timestamp, 1000)))
ORDER BY (kafka_timestamp, kafka_topic, kafka_partition, kafka_offset)
SETTINGS index_granularity = 1024;

CREATE MATERIALIZED VIEW IF NOT EXISTS events_dlq_by_time_mv TO events_dlq_by_time AS
SELECT kafka_timestamp, kafka_topic, kafka_partition, kafka_offset, run_id, reason, inserted_at
FROM events_dlq;

-- Every emission (version) of a window is copied; readers keep argMax(..., version) per
-- (run_id, window_start, event_type), so the copy is exact for the same reason as agg_windows.
CREATE TABLE IF NOT EXISTS agg_windows_by_time
(
    window_start Int64,
    event_type String,
    run_id String,
    window_end Int64,
    event_count Int64,
    amount_cents_sum Int64,
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(toDateTime(intDiv(window_start, 1000)))
ORDER BY (window_start, event_type, run_id)
SETTINGS index_granularity = 1024;

CREATE MATERIALIZED VIEW IF NOT EXISTS agg_windows_by_time_mv TO agg_windows_by_time AS
SELECT window_start, event_type, run_id, window_end, event_count, amount_cents_sum, version
FROM agg_windows;
