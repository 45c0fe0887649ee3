-- The gateway's Idempotency-Keys move to the shared store (edge.idempotency_keys, namespace
-- 'gateway', scope the account id): every key still answering is carried over as it stands (a
-- stored answer with its text, a pending run with its lease, or one leased for the default
-- deadline plus margin if it had none), then the gateway's own table goes.
INSERT INTO edge.idempotency_keys
  (namespace, scope, idempotency_key, request_fingerprint, attachment, state, lease_token, lease_until,
   status, headers, body, created_at, completed_at)
SELECT 'gateway', account_id, idempotency_key, request_hash, NULL, state,
  CASE WHEN state = 'pending' THEN coalesce(lease_token, gen_random_uuid()::text) END,
  CASE WHEN state = 'pending' THEN coalesce(lease_until, created_at + interval '70 seconds') END,
  CASE WHEN state = 'done' THEN coalesce(status, 200) END,
  CASE WHEN state = 'done' THEN '{"Content-Type": "application/json"}'::jsonb END,
  CASE WHEN state = 'done' THEN coalesce(body, 'null') END,
  created_at,
  CASE WHEN state = 'done' THEN created_at END
FROM idempotent_runs
ON CONFLICT DO NOTHING;

DROP TABLE idempotent_runs;
