-- Issue 18, audit finding 1: no transaction anywhere freezes the events feed. Two parts: the feed's
-- order (events, webhook_fanout) and a token refresh that holds no transaction (connections, below).
--
-- The events feed in commit order, independent of every other transaction. 023_events.sql ordered the feed by (xid, seq) and showed only events of transactions
-- older than every transaction still running on the server: one transaction left open anywhere
-- (another database's, a slow token refresh) froze GET /api/v1/events and the webhooks' fan-out for
-- every account. Replaced by a position given after commit:
--
-- events.position  NULL when written; the event's place in the feed once placed (1, 2, 3, …).
--   A sequencer (src/store/events.ts, sequenceEvents) gives the events it can see (their
--   transaction committed) and that have none the next positions, in the order they were written
--   (seq), in a short transaction of its own under a transaction-scoped advisory lock
--   (hashtext('publisher.event_sequencer')): one sequencer at a time, and each one's first
--   statement after the lock sees every position the previous one committed. So positions
--   become readable in increasing order, and an event committed late gets a position after every
--   one already readable: a reader paging by position never skips nor repeats an event. Readers
--   (GET /api/v1/events, the webhooks' fan-out) run a sequencing step before they read (one
--   indexed read when nothing waits) and read only placed events. A transaction left open holds
--   back only its own events.
-- Cursors are positions (src/domain/event-cursor.ts); cursors issued on (xid, seq) are refused.
--
-- The events already written are placed in their former feed order, (xid, seq); the fan-out's
-- standing moves to the position of the last event it had read.
ALTER TABLE events ADD COLUMN position bigint;

UPDATE events e SET position = ordered.position
FROM (SELECT seq, row_number() OVER (ORDER BY xid, seq) AS position FROM events) AS ordered
WHERE e.seq = ordered.seq;

-- webhook_fanout.last_position: the position of the last event fanned out (0: none yet).
ALTER TABLE webhook_fanout ADD COLUMN last_position bigint NOT NULL DEFAULT 0;
UPDATE webhook_fanout f SET last_position = coalesce(
  (SELECT max(e.position) FROM events e WHERE (e.xid, e.seq) <= (f.last_xid, f.last_seq)), 0);
ALTER TABLE webhook_fanout DROP COLUMN last_xid, DROP COLUMN last_seq;

DROP INDEX events_account_position;
DROP INDEX events_position;
ALTER TABLE events DROP COLUMN xid;

-- The feed across accounts (the fan-out, the sequencer's max); one event per position.
CREATE UNIQUE INDEX events_feed ON events (position);
-- GET /api/v1/events: an account's feed, from a cursor.
CREATE INDEX events_account_feed ON events (account_id, position) WHERE position IS NOT NULL;
-- The events waiting for a position, in the order they were written.
CREATE INDEX events_unplaced ON events (seq) WHERE position IS NULL;

-- A connection's token refresh holds no transaction across the platform's call (issue 18, audit
-- finding 1: a refresh held `SELECT … FOR UPDATE` for as long as a PDS the account chose took to
-- answer, and with it a transaction id that froze the events feed). Code:
-- src/connections/token-vault.ts.
--   refresh_until  while a caller refreshes the connection's tokens: until when its lease holds
--                  (taken in one short statement; other callers wait for its result until then,
--                  and take over after); NULL otherwise
--   token_version  bumped when a lease is taken, when refreshed tokens are saved and when a
--                  reconnect replaces the tokens: a refresh saves its tokens (or marks the
--                  connection needs_reconnect) only if the version is still the one its lease
--                  took (a compare-and-swap), so a lease taken over or a reconnect wins over it
ALTER TABLE connections
  ADD COLUMN refresh_until timestamptz,
  ADD COLUMN token_version bigint NOT NULL DEFAULT 0;
