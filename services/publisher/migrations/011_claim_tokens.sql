-- A claim's own token: every write a worker makes after claiming a target is conditional on it,
-- so a worker whose lease ran out and was re-claimed (by another worker, or by its own process)
-- can never write over the new claim. `claimed_by` stays for diagnostics and the sweeper's log.
ALTER TABLE post_targets ADD COLUMN claim_token text;
