-- API keys get the standard columns of the shared key store (@app/edge keys): the shown prefix of
-- a key (for lists; empty for keys issued before it was kept, whose clear key was never stored),
-- when it was last used (touched at most once a minute), and a default for scopes.
ALTER TABLE api_keys ADD COLUMN prefix text NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
ALTER TABLE api_keys ALTER COLUMN scopes SET DEFAULT '{}';
