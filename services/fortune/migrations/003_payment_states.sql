-- A payment is `pending` while its settlement is broadcast but not yet confirmed (its transaction
-- hash is kept), and `accrued` while a session's vouchers cover it but no settlement of the channel
-- has confirmed yet. Neither is ever called failed until the chain says so.
ALTER TABLE payments DROP CONSTRAINT payments_state_check;
ALTER TABLE payments ADD CONSTRAINT payments_state_check
  CHECK (state IN ('verified', 'pending', 'accrued', 'settled', 'failed', 'canceled'));
CREATE INDEX payments_unfinished ON payments (state, updated_at) WHERE state IN ('verified', 'pending', 'accrued');
