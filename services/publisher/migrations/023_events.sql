-- The events outbox and each post's history (issue 18). Both are written in the same transaction as
-- the state change they report (src/store/events.ts): an event or a step exists exactly when its
-- change committed. Webhooks deliver the events; GET /api/v1/events and GET /api/v1/posts/{id}/events
-- read them.
--
-- history_seq: one sequence for both tables, so a post's steps and events merge in the order they
-- were written.
--
-- events: what the publisher tells an account happened (src/contracts/events.ts).
--   seq          from history_seq: the order of writing (unique)
--   xid          the writing transaction's id (xid8, pg_current_xact_id(); the top-level one)
--   id           `evt_…`, stable: a consumer deduplicates on it
--   account_id   whose event it is
--   type         post.scheduled, post.publishing, … (PUBLISHER_EVENT_TYPES)
--   post_id      the post it is about, if any
--   target_id    the post's target it is about, if any
--   data         its payload (JSON object; never a token or a secret)
--   occurred_at  when the change happened (the writer's clock)
--
-- The feed's order is (xid, seq), not seq alone. A sequence number is taken when a row is written,
-- not when its transaction commits: an event written early by a transaction that commits late
-- would appear behind a reader that already paged past its seq. Readers therefore see only events
-- of transactions older than every transaction still running (xid < the snapshot's xmin,
-- pg_snapshot_xmin(pg_current_snapshot())): every event committed later has a larger xid than any
-- event already read, so a cursor (xid, seq) never skips nor repeats one. The price: a transaction
-- left open anywhere on the server holds the feed back (never reorders it) until it ends.
CREATE SEQUENCE history_seq;

CREATE TABLE events (
  seq bigint PRIMARY KEY DEFAULT nextval('history_seq'),
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  id text NOT NULL UNIQUE,
  account_id text NOT NULL REFERENCES accounts (id),
  type text NOT NULL,
  post_id text,
  target_id text,
  data jsonb NOT NULL,
  occurred_at timestamptz NOT NULL
);
-- GET /api/v1/events: an account's feed, from a cursor.
CREATE INDEX events_account_position ON events (account_id, xid, seq);
-- The feed across accounts (the webhooks' fan-out).
CREATE INDEX events_position ON events (xid, seq);
-- A post's history.
CREATE INDEX events_post ON events (post_id, seq) WHERE post_id IS NOT NULL;

-- post_steps: the finer history of a post's run (GET /api/v1/posts/{id}/events), never a token.
--   seq          from history_seq
--   post_id      the post
--   target_id    the target the step is about, if any
--   step         claimed, handle_saved, upload_progress, claim_lost, lease_expired,
--                retry_scheduled, published, failed (src/domain/post-steps.ts)
--   detail       the step's facts (worker id, the platform's answer code and message, a retry's
--                delay, …)
--   occurred_at  when it happened (the writer's clock)
CREATE TABLE post_steps (
  seq bigint PRIMARY KEY DEFAULT nextval('history_seq'),
  post_id text NOT NULL REFERENCES posts (id),
  target_id text,
  step text NOT NULL,
  detail jsonb NOT NULL,
  occurred_at timestamptz NOT NULL
);
CREATE INDEX post_steps_post ON post_steps (post_id, seq);
