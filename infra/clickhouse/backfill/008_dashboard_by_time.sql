-- One-off: copies the rows that were in the source tables before 008_dashboard_by_time.sql
-- created the views (a view only sees later inserts). The loader runs each statement at start when
-- its target table is empty, after the DDL (the views must exist first, so that nothing inserted
-- meanwhile is missed); by hand:
--   clickhouse-client --port 19000 -d clickstream --multiquery < infra/clickhouse/backfill/008_dashboard_by_time.sql
-- Idempotent: a row copied twice (here and by the view, or by a second run) has the copy's full
-- key twice and collapses on merge; the dashboard's reads ignore the duplicate until then.
-- On a fresh database every statement copies nothing: the loader applies the DDL before it inserts anything.
-- The SELECTs are those of the views, word for word (a unit spec checks it).
INSERT INTO events_by_time
SELECT event_time, run_id, event_id, session_id, event_type, product_id, amount_cents, inserted_at,
    toInt8(indexOf(['page_view', 'product_view', 'add_to_cart', 'checkout_started', 'payment_succeeded'], event_type) - 1) AS funnel_step,
    concat(toString(length(run_id)), ':', run_id, session_id) AS session_key
FROM events_clean;

INSERT INTO events_dlq_by_time
SELECT kafka_timestamp, kafka_topic, kafka_partition, kafka_offset, run_id, reason, inserted_at
FROM events_dlq;

INSERT INTO agg_windows_by_time
SELECT window_start, event_type, run_id, window_end, event_count, amount_cents_sum, version
FROM agg_windows;
