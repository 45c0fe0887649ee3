-- Fortune's Idempotency-Keys move to the shared store (edge.idempotency_keys, namespace 'fortune',
-- scope '<route>:<payer>', the claim key of the authorisation paying for the request kept as the
-- key's attachment). Every key is carried over as it stands: a pending one pinned (held until the
-- reconciler completes or frees it, as before: it may wait on the chain), a stored response with
-- its headers, its content type and its body as text. Then fortune's own table goes.
INSERT INTO edge.idempotency_keys
  (namespace, scope, idempotency_key, request_fingerprint, attachment, state, lease_token, lease_until,
   status, headers, body, created_at, completed_at)
SELECT 'fortune', route || ':' || payer, idempotency_key, request_hash, claim_key, state,
  CASE WHEN state = 'pending' THEN gen_random_uuid()::text END,
  NULL,
  CASE WHEN state = 'done' THEN coalesce(status, 200) END,
  CASE WHEN state = 'done' THEN coalesce(headers, '{}'::jsonb) || '{"Content-Type": "application/json"}'::jsonb END,
  CASE WHEN state = 'done' THEN coalesce(body::text, 'null') END,
  created_at,
  CASE WHEN state = 'done' THEN created_at END
FROM idempotent_responses
ON CONFLICT DO NOTHING;

DROP TABLE idempotent_responses;

-- The response a payment bought keeps its body as the text to send (a JSON string in `response`),
-- so a replay is the bytes first sent; earlier rows get theirs as jsonb prints it, with the
-- content type.
UPDATE payments SET response = response || jsonb_build_object(
    'body', coalesce((response -> 'body')::text, 'null'),
    'headers', coalesce(response -> 'headers', '{}'::jsonb) || '{"Content-Type": "application/json"}'::jsonb)
WHERE response IS NOT NULL AND jsonb_typeof(response -> 'body') IS DISTINCT FROM 'string';
