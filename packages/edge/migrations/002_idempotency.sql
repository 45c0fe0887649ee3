-- Idempotency-Keys (IdempotencyStore): one row per namespace (the service: `gateway`, `fortune`),
-- scope (the caller: an account id, a route and payer) and key, holding the fingerprint of the
-- request that first came with the key.
--
-- `pending`: a request holds the key under `lease_token`; past `lease_until` (its instance died)
-- the next request with the key takes it over. A NULL `lease_until` is a pinned key: held until
-- it is completed or released (its effect may land after the request is gone, as a payment sent to
-- the chain does; the service's recovery finishes it). `attachment` is the operation's own opaque
-- note of what the first request is bound to (fortune: the payment authorisation paying for it).
--
-- `done`: the response the first request answered, replayed to retries until `completed_at` is
-- 24 hours old: its status, the headers worth replaying, and the body as the text first sent (not
-- jsonb, which reorders keys and refuses a `\u0000` escape).
CREATE TABLE idempotency_keys (
  namespace text NOT NULL,
  scope text NOT NULL,
  idempotency_key text NOT NULL,
  request_fingerprint text NOT NULL,
  attachment text,
  state text NOT NULL CHECK (state IN ('pending', 'done')),
  lease_token text,
  lease_until timestamptz,
  status integer,
  headers jsonb,
  body text,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  PRIMARY KEY (namespace, scope, idempotency_key),
  CHECK (
    (state = 'pending' AND lease_token IS NOT NULL AND status IS NULL AND body IS NULL)
    OR (state = 'done' AND lease_token IS NULL AND lease_until IS NULL
        AND status IS NOT NULL AND headers IS NOT NULL AND body IS NOT NULL AND completed_at IS NOT NULL)
  )
);

-- Keys still pending, oldest first (a service's recovery looks for those whose request is gone).
CREATE INDEX idempotency_keys_pending ON idempotency_keys (namespace, created_at) WHERE state = 'pending';
-- Stored responses by age (purged past their 24 hours).
CREATE INDEX idempotency_keys_done ON idempotency_keys (namespace, completed_at) WHERE state = 'done';
