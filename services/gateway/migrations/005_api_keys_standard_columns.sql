-- Gateway keys get the standard columns of the shared key store (@app/edge keys): scopes (none used
-- by the gateway yet) and when the key was last used (touched at most once a minute).
ALTER TABLE api_keys ADD COLUMN scopes text[] NOT NULL DEFAULT '{}';
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
