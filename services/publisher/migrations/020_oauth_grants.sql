-- A platform's consent waiting for the user's confirmation: the callback has traded the code for
-- tokens, and the connection is saved only when the person at the browser confirms which publisher
-- account it joins (a connect link sent to someone else must not connect their channel silently).
-- The confirmation is random and stored only as its SHA-256; the tokens are sealed; ten minutes.
CREATE TABLE oauth_grants (
  confirmation_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  platform text NOT NULL CHECK (platform IN ('youtube', 'tiktok')),
  platform_account_id text NOT NULL,
  account_name text NOT NULL,
  secrets text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_grants_expiry ON oauth_grants (expires_at);
