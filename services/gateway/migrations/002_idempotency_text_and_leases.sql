-- The stored answer is kept as the JSON text that was answered, not as jsonb: jsonb refuses JSON
-- that is valid elsewhere (a \u0000 escape, an unpaired surrogate escape), which an upstream may
-- well answer, and it would reorder the envelope's keys on replay.
ALTER TABLE idempotent_runs ALTER COLUMN body TYPE text USING body::text;

-- A pending row is held under a lease: past `lease_until` (the upstream's total deadline plus a
-- margin) its run is taken for dead and the next request with the key takes it over. `lease_token`
-- names the holder, so a run that outlived its lease cannot complete or release its successor's.
ALTER TABLE idempotent_runs ADD COLUMN lease_until timestamptz;
ALTER TABLE idempotent_runs ADD COLUMN lease_token text;

-- A run that failed on the gateway's side after it was charged (its finish could not be written)
-- is finished as 'failed' and refunded.
ALTER TABLE runs DROP CONSTRAINT runs_outcome_check;
ALTER TABLE runs ADD CONSTRAINT runs_outcome_check
  CHECK (outcome IN ('running', 'completed', 'failed', 'upstream_unavailable', 'upstream_timeout', 'upstream_response_too_large'));
