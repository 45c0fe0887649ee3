-- Self-serve accounts: an account opened by a wallet (POST /v1/accounts, signed in with
-- Sign-In-With-X) is owned by it. The address is kept lower-case; one account per wallet.
ALTER TABLE accounts ADD COLUMN owner_wallet text CHECK (owner_wallet ~ '^0x[0-9a-f]{40}$');
ALTER TABLE accounts ADD CONSTRAINT accounts_owner_wallet_key UNIQUE (owner_wallet);

-- A credit bought with a payment names it: the protocol (x402 or MPP), the settlement reference
-- (unique: one payment credits once, however often it is presented) and the transaction that
-- settled it (unknown only for a settlement recovered from the chain after a facilitator that
-- never answered). Operator credits, runs and refunds have none of the three.
ALTER TABLE ledger ADD COLUMN payment_protocol text CHECK (payment_protocol IN ('x402', 'mpp'));
ALTER TABLE ledger ADD COLUMN settlement_reference text;
ALTER TABLE ledger ADD COLUMN transaction_hash text;
ALTER TABLE ledger ADD CONSTRAINT ledger_settlement_reference_key UNIQUE (settlement_reference);
ALTER TABLE ledger ADD CONSTRAINT ledger_paid_credit CHECK (
  (payment_protocol IS NULL AND settlement_reference IS NULL AND transaction_hash IS NULL)
  OR (kind = 'credit' AND payment_protocol IS NOT NULL AND settlement_reference IS NOT NULL)
);

-- Payments for credit, claimed before they are sent to the chain (one row per settlement
-- reference, so concurrent copies of one payment settle and credit once) and kept until the chain
-- has said how they ended: `pending` (claimed, or sent and not confirmed), `credited` (settled; its
-- ledger row written in the same transaction), `failed` (refused, reverted or expired unused:
-- nothing was taken, nothing credited). For x402 the authorisation's public facts (never its
-- signature) let the chain be asked after a crash.
CREATE TABLE credit_payments (
  reference text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  protocol text NOT NULL CHECK (protocol IN ('x402', 'mpp')),
  amount_micro bigint NOT NULL CHECK (amount_micro > 0),
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'credited', 'failed')),
  transaction_hash text,
  authorization_facts jsonb,
  failure text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_payments_pending ON credit_payments (updated_at) WHERE state = 'pending';

-- Sign-In-With-X nonces that were used, kept until they would have expired (nonces are issued
-- stateless: an unanswered challenge stores nothing).
CREATE TABLE siwx_spent_nonces (
  nonce text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX siwx_spent_nonces_expiry ON siwx_spent_nonces (expires_at);

-- The MPP server's store (charge replay markers), values sealed with a key derived from the MPP
-- secret; expired markers are purged.
CREATE TABLE mpp_store (
  key text PRIMARY KEY,
  value text NOT NULL,
  expires_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mpp_store_expiry ON mpp_store (expires_at) WHERE expires_at IS NOT NULL;
