-- Webhooks (issue 18): an account's endpoints, one delivery per (event, endpoint) fanned out from
-- the events outbox (023_events.sql), and every attempt of every delivery. Code: src/webhooks/.
--
-- webhook_endpoints: where an account's events are sent.
--   id               `wh_…`
--   account_id       the owner
--   url              http(s), checked when set and again, after DNS, at every send
--   description      free text, optional
--   event_types      the event types sent; NULL: every type
--   enabled          false when the owner turned it off, or after persistent failure
--   disabled_reason  NULL while enabled; 'owner' or 'failing'
--   secret           the signing secret (`whsec_…`), sealed (AES-256-GCM, purpose publisher.webhooks,
--                    bound to the endpoint id): never in clear
--   previous_secret  the secret before the last rotation, sealed; valid until previous_secret_until
--   failing_since    the first failed attempt of the current failure streak (NULL after a success)
--   consecutive_failures  failed attempts since the last success
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  url text NOT NULL,
  description text,
  event_types text[],
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text CHECK (disabled_reason IN ('owner', 'failing')),
  secret text NOT NULL,
  previous_secret text,
  previous_secret_until timestamptz,
  failing_since timestamptz,
  consecutive_failures integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at, id);

-- Where the fan-out stands in the events feed: the position (xid, seq) of the last event turned
-- into deliveries (the feed's order, 023_events.sql). One row; one worker at a time fans out (a
-- transaction-scoped advisory lock; the others skip), advancing it in the same transaction as the
-- deliveries it made.
CREATE TABLE webhook_fanout (
  id smallint PRIMARY KEY CHECK (id = 1),
  last_xid xid8 NOT NULL,
  last_seq bigint NOT NULL
);
INSERT INTO webhook_fanout (id, last_xid, last_seq) VALUES (1, '0', 0);

-- webhook_deliveries: one event for one endpoint (unique), sent until it is answered 2xx or runs
-- out of attempts.
--   status           pending | delivered | failed
--   attempts         attempts started (a claim starts one)
--   next_attempt_at  when a pending delivery is due
--   final_attempt    set by a resend of a finished delivery: the one attempt it makes (no schedule)
--   leased_until, lease_token  the claim of the worker sending it (FOR UPDATE SKIP LOCKED, then a
--                    lease: a worker that died mid-send leaves it due again once the lease ends)
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  final_attempt integer,
  leased_until timestamptz,
  lease_token text,
  last_response_status integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

-- webhook_attempts: each attempt once, written when it is claimed and completed when answered.
--   number           1, 2, … within its delivery (unique: an attempt is recorded once)
--   worker_id        the process that sent it
--   response_status  the receiver's HTTP status; NULL when none came (refused, timed out, reset)
--   latency_ms       from the request to the response head (or to the failure)
--   response_excerpt the first bytes of the answer, control characters and anything secret removed
--   error            why it failed, when it did; NULL while in flight or on success
--   retry_at         when the next attempt was scheduled by this one's failure
--   finished_at      NULL: still in flight, or its worker died before it was answered
CREATE TABLE webhook_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  number integer NOT NULL,
  worker_id text NOT NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  response_status integer,
  latency_ms integer,
  response_excerpt text,
  error text,
  retry_at timestamptz,
  PRIMARY KEY (delivery_id, number)
);
