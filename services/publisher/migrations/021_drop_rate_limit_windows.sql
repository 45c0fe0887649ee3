-- The per-key request windows moved to the shared fixed window (@app/edge, table edge.rate_limit_windows).
DROP TABLE IF EXISTS rate_limit_windows;
