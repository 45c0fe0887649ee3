-- Every payment the service takes, on any rail, from verification to its final state.
CREATE TABLE payments (
  id text PRIMARY KEY,
  route text NOT NULL,
  rail text NOT NULL CHECK (rail IN ('x402', 'mpp')),
  scheme text NOT NULL,
  network text,
  asset text,
  payer text,
  -- One payment authorisation runs the handler at most once: this key names the authorisation
  -- (network, asset, payer, nonce) and is unique across all instances.
  claim_key text NOT NULL UNIQUE,
  authorized_atomic bigint NOT NULL,
  settled_atomic bigint,
  state text NOT NULL CHECK (state IN ('verified', 'settled', 'failed', 'canceled')),
  reference text,
  failure_reason text,
  idempotency_key text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payments_payer ON payments (payer, created_at DESC);

-- Responses kept for Idempotency-Key retries: a retry gets the stored response and is not charged.
CREATE TABLE idempotent_responses (
  route text NOT NULL,
  idempotency_key text NOT NULL,
  payer text NOT NULL,
  request_hash text NOT NULL,
  -- The authorisation that paid for the stored response: presenting it again replays the response.
  claim_key text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'done')),
  status integer,
  body jsonb,
  headers jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (route, idempotency_key, payer)
);

-- Nonces for Sign-In-With-X, issued by this service, single use, short lived.
CREATE TABLE siwx_nonces (
  nonce text PRIMARY KEY,
  issued_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX siwx_nonces_expiry ON siwx_nonces (expires_at);

-- What a wallet has paid for once and may replay with a SIWX signature.
CREATE TABLE entitlements (
  wallet text NOT NULL,
  route text NOT NULL,
  payment_id text NOT NULL REFERENCES payments (id),
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (wallet, route)
);

CREATE TABLE favorites (
  id text PRIMARY KEY,
  wallet text NOT NULL,
  fortune text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (wallet, fortune)
);
CREATE INDEX favorites_wallet ON favorites (wallet, created_at);

-- Successful premium fortunes, for the rolling per-category limit shared by every instance.
CREATE TABLE premium_usage (
  id text PRIMARY KEY,
  category text NOT NULL,
  payment_id text,
  used_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX premium_usage_category ON premium_usage (category, used_at);
