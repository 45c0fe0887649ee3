-- The per-key token buckets moved to the shared token bucket (@app/edge, table edge.rate_buckets).
DROP TABLE IF EXISTS rate_buckets;
