-- Queue placement asks which of a few hundred candidate instants an account's posts occupy.
CREATE INDEX posts_account_scheduled_for ON posts (account_id, scheduled_for);
