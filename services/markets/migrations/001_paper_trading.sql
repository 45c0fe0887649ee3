-- The catalogue of events and markets is generated in code from a fixed seed (src/catalogue);
-- these tables hold only what paper trading changes, shared by every instance.

-- Paper accounts. The account token is shown once at creation; only its SHA-256 hash is kept.
CREATE TABLE accounts (
  id text PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  label text,
  balance_micro bigint NOT NULL CHECK (balance_micro >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The live book of a market once it has traded (the book of outcome 0; outcome 1's is its mirror).
-- Levels are [{"cents": 37, "shares": "<micro-shares>"}], bids ascending, asks descending.
-- The row is also the market's lock: orders and resolution take it FOR UPDATE first.
CREATE TABLE books (
  condition_id text PRIMARY KEY,
  bids jsonb NOT NULL,
  asks jsonb NOT NULL,
  last_trade_cents integer CHECK (last_trade_cents BETWEEN 1 AND 99),
  traded_volume_micro bigint NOT NULL DEFAULT 0 CHECK (traded_volume_micro >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Markets resolved by an operator (the seed's closed markets are resolved in the catalogue).
CREATE TABLE resolutions (
  condition_id text PRIMARY KEY,
  winner_index smallint NOT NULL CHECK (winner_index IN (0, 1)),
  winning_token_id text NOT NULL,
  payout_micro bigint NOT NULL CHECK (payout_micro >= 0),
  positions_settled integer NOT NULL,
  resolved_at timestamptz NOT NULL DEFAULT now()
);

-- What each account holds of each outcome token, with its cost basis and realised profit.
CREATE TABLE positions (
  account_id text NOT NULL REFERENCES accounts (id),
  token_id text NOT NULL,
  condition_id text NOT NULL,
  shares_micro bigint NOT NULL CHECK (shares_micro >= 0),
  cost_basis_micro bigint NOT NULL CHECK (cost_basis_micro >= 0),
  realised_pnl_micro bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, token_id)
);
CREATE INDEX positions_condition ON positions (condition_id);

-- Every filled market order, with its fills.
CREATE TABLE orders (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  token_id text NOT NULL,
  condition_id text NOT NULL,
  side text NOT NULL CHECK (side IN ('buy', 'sell')),
  requested_amount_micro bigint,
  requested_shares_micro bigint,
  filled_shares_micro bigint NOT NULL CHECK (filled_shares_micro > 0),
  notional_micro bigint NOT NULL CHECK (notional_micro >= 0),
  fills jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('filled', 'partially_filled')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_account ON orders (account_id, created_at DESC);
