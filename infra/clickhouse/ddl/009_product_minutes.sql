-- The top-products rollup (issue #14): per minute of event time, event type, product and run, the
-- set of event ids, kept as a uniqExact state. The dashboard's ranking merges the states of the
-- whole minutes of its range and reads the partial minutes at its edges from events_by_time.
-- Why a state and not a count: the loader inserts a block again when it is redelivered, and the
-- view fires on every insert. A count would then count those events twice for ever (the
-- materialized-view trap, docs/CLICKHOUSE.md); a uniqExact state holds each event id once however
-- often it is merged, so a redelivered block adds rows that uniqExactMerge folds away, before the
-- background merge and after it. The view's only aggregate is uniqExactState (a unit spec checks it).
-- Rows that were in events_clean before this view existed are filled once by
-- infra/clickhouse/backfill/009_product_minutes.sql (the loader runs it when the table is empty).
-- The column is `product`, not product_id: on 18.16 an alias named like a source column replaces
-- that column in the view's WHERE too.

CREATE TABLE IF NOT EXISTS product_minutes
(
    minute Int64,
    event_type String,
    product String,
    run_id String,
    events AggregateFunction(uniqExact, String)
)
ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(toDateTime(intDiv(minute, 1000)))
ORDER BY (minute, event_type, product, run_id)
SETTINGS index_granularity = 1024;

CREATE MATERIALIZED VIEW IF NOT EXISTS product_minutes_mv TO product_minutes AS
SELECT intDiv(event_time, 60000) * 60000 AS minute, event_type, assumeNotNull(product_id) AS product, run_id,
    uniqExactState(event_id) AS events
FROM events_clean
WHERE event_type IN ('product_view', 'add_to_cart') AND isNotNull(product_id)
GROUP BY minute, event_type, product, run_id;
