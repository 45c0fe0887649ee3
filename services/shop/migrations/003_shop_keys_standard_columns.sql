-- Shop keys get the standard columns of the shared key store (@app/edge keys): the shown prefix of
-- a key (for lists; empty for keys issued before it was kept, whose clear key was never stored),
-- scopes (none used by the shop yet), and when the key was last used (touched at most once a minute).
ALTER TABLE shop_keys ADD COLUMN prefix text NOT NULL DEFAULT '';
ALTER TABLE shop_keys ADD COLUMN scopes text[] NOT NULL DEFAULT '{}';
ALTER TABLE shop_keys ADD COLUMN last_used_at timestamptz;
