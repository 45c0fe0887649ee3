-- The API half: per-key request counters shared by every instance, and lookups it relies on.

-- Fixed-window request counters per API key (120 a minute by default, PUBLISHER_RATE_LIMIT).
CREATE TABLE rate_limit_windows (
  key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL CHECK (hits >= 1),
  PRIMARY KEY (key_id, window_start)
);

CREATE INDEX api_keys_account ON api_keys (account_id);
CREATE INDEX connections_account ON connections (account_id, created_at);
CREATE INDEX groups_account ON groups (account_id, created_at);
CREATE INDEX posts_account_status_created ON posts (account_id, status, created_at DESC, id DESC);
CREATE INDEX media_account ON media (account_id, created_at);
