-- One-off: fills product_minutes from the rows that were in events_clean before
-- 009_product_minutes.sql created its view (a view only sees later inserts). The loader runs it at
-- start when product_minutes is empty, after the DDL (so the view exists and nothing inserted
-- meanwhile is missed); by hand:
--   clickhouse-client --port 19000 -d clickstream --multiquery < infra/clickhouse/backfill/009_product_minutes.sql
-- Idempotent in its answers: a second run adds states of event ids that are already there, and
-- uniqExactMerge counts each id once. The SELECT is the view's, word for word (a unit spec checks it).
INSERT INTO product_minutes
SELECT intDiv(event_time, 60000) * 60000 AS minute, event_type, assumeNotNull(product_id) AS product, run_id,
    uniqExactState(event_id) AS events
FROM events_clean
WHERE event_type IN ('product_view', 'add_to_cart') AND isNotNull(product_id)
GROUP BY minute, event_type, product, run_id;
