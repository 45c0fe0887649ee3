-- Run history (GET /v1/runs, /v1/runs/{id}, /v1/usage, /v1/ledger).

-- Whether an account keeps its runs' outputs (off unless the operator turns it on): the output is
-- then stored with the run, scrubbed of the upstream key as the run's answer was, and shown by
-- GET /v1/runs/{id}.
ALTER TABLE accounts ADD COLUMN keep_run_output boolean NOT NULL DEFAULT false;

-- What a run was asked with, for the caller's own records: the Idempotency-Key it was sent with
-- and the request id (x-request-id) of the request that ran it. Its output only when kept (above):
-- the JSON text answered as the run's `output` (text, not jsonb, which refuses some valid JSON).
ALTER TABLE runs ADD COLUMN idempotency_key text;
ALTER TABLE runs ADD COLUMN request_id text;
ALTER TABLE runs ADD COLUMN output text;

-- Runs are paged newest first by (created_at, id): the index carries the tie-breaker.
DROP INDEX runs_account_time;
CREATE INDEX runs_account_time ON runs (account_id, created_at DESC, id DESC);

-- A run's ledger rows (its charge and any refund), looked up for each run listed or counted.
CREATE INDEX ledger_run ON ledger (run_id) WHERE run_id IS NOT NULL;
