-- Spend held by a gateway instance for the priced runs it charges in memory (`runner/held-spend.ts`).
-- An instance takes a hold on an account's balance and on its key's spend of the day (in total and
-- on one tool) in one statement that checks them as a charge does; it then charges runs against the
-- hold without the database, and settles them (their run rows and ledger rows, the balance debited,
-- the spend counted) in batches behind the answers. Whatever is held is spoken for: a charge, a
-- hold or a cap check counts it as spent until it is settled or released.
--   accounts.held_micro         the part of the balance held by instances, never more than the balance
--   key_daily_spend.held_micro  the part of the day's spend held, on top of spent_micro
ALTER TABLE accounts ADD COLUMN held_micro bigint NOT NULL DEFAULT 0 CHECK (held_micro >= 0);
ALTER TABLE accounts ADD CONSTRAINT accounts_held_within_balance CHECK (held_micro <= balance_micro);
ALTER TABLE key_daily_spend ADD COLUMN held_micro bigint NOT NULL DEFAULT 0 CHECK (held_micro >= 0);

-- One hold of one instance, on one key's spend on one tool on one UTC day (`tool` as policies name
-- it). `amount_micro` is what the hold still holds. A hold not renewed by `expires_at` belongs to an
-- instance that stopped without settling: the sweeper releases it, counting it as spent on the key's
-- caps (the runs it answered are not known) and giving the balance back (they are not charged).
CREATE TABLE spend_holds (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  tool text NOT NULL,
  day date NOT NULL,
  amount_micro bigint NOT NULL CHECK (amount_micro >= 0),
  expires_at timestamptz NOT NULL,
  -- Bumped by every statement that changes the hold: a give-back applies only to the version its
  -- instance last saw, so a settle sent again after a lost answer gives nothing back twice.
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX spend_holds_expiry ON spend_holds (expires_at);
