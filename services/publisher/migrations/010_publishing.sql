-- Publishing: OAuth connect states, and the indexes the target queue and the sweeper read.

-- A connect flow in progress: the state is random and stored only as its SHA-256; it is bound to
-- the account that started it, lives ten minutes and is consumed once. The PKCE verifier is sealed.
CREATE TABLE oauth_states (
  state_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  platform text NOT NULL CHECK (platform IN ('youtube', 'tiktok')),
  code_verifier text NOT NULL,
  redirect_uri text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_states_expiry ON oauth_states (expires_at);

-- Claims whose lease may have run out (the sweeper's scan).
CREATE INDEX post_targets_claims ON post_targets (claimed_until) WHERE claimed_by IS NOT NULL;
-- Live targets of a connection (failed together when it needs reconnecting).
CREATE INDEX post_targets_connection ON post_targets (connection_id) WHERE status IN ('scheduled', 'publishing');
