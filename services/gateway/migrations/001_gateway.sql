-- Gateway accounts. The balance is a cache of the ledger's sum, in integer micro-USD; a debit is a
-- conditional UPDATE (… WHERE balance_micro >= cost), and the CHECK is the last line of defence.
CREATE TABLE accounts (
  id text PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  balance_micro bigint NOT NULL DEFAULT 0 CHECK (balance_micro >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Gateway keys: only the SHA-256 of the key is kept (hex); the key itself is shown once.
-- `prefix` is the first characters of the key, enough to recognise it in a list, useless to call with.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  prefix text NOT NULL,
  label text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

-- One row per run: what ran, for whom, how it ended. Never the inputs' secrets: no upstream key,
-- no query or path values (they are the caller's business), only the tool and the outcome.
CREATE TABLE runs (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  provider text NOT NULL,
  endpoint text NOT NULL,
  method text NOT NULL,
  outcome text NOT NULL DEFAULT 'running'
    CHECK (outcome IN ('running', 'completed', 'upstream_unavailable', 'upstream_timeout', 'upstream_response_too_large')),
  upstream_status integer,
  cost_micro bigint NOT NULL CHECK (cost_micro >= 0),
  duration_ms integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX runs_account_time ON runs (account_id, created_at DESC);

-- The append-only money ledger: credits (+), run charges (− the price, 0 for free tools) and
-- refunds (+) of runs the upstream did not serve. Each row records the balance it left.
CREATE TABLE ledger (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('credit', 'run', 'refund')),
  amount_micro bigint NOT NULL,
  balance_after_micro bigint NOT NULL CHECK (balance_after_micro >= 0),
  run_id text REFERENCES runs (id) ON DELETE SET NULL,
  note text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_account ON ledger (account_id, id);

-- Results kept for retries with the same Idempotency-Key (24 h): the run envelope, never a secret.
CREATE TABLE idempotent_runs (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  request_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'done')),
  status integer,
  body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, idempotency_key)
);

-- Token buckets of the per-key rate limit, shared by every instance on this database.
CREATE TABLE rate_buckets (
  key_id text PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
  tokens double precision NOT NULL,
  refilled_at timestamptz NOT NULL
);
