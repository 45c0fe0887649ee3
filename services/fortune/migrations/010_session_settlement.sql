-- MPP session channels this service has billed, and where their settlement stands. The settler
-- (every instance runs one) settles a channel whose billing ran ahead of its settlement for the
-- configured interval, or at once when its payer requested close on the reserve.
CREATE TABLE session_channels (
  channel_id text PRIMARY KEY,
  payer text,
  -- Cumulative amount billed in the ledger, and cumulative amount settled on chain (highest seen).
  accrued_atomic bigint NOT NULL DEFAULT 0,
  settled_atomic bigint NOT NULL DEFAULT 0,
  -- The transaction of the latest settlement.
  settlement_tx text,
  -- Since when billing has been ahead of settlement; null when everything billed is settled.
  unsettled_since timestamptz,
  -- The payer asked the reserve to close the channel: no more vouchers are taken, it settles now.
  close_requested_at timestamptz,
  -- Closed cooperatively (the client's close settled it): nothing is left to settle.
  closed_at timestamptz,
  -- A settler working on the channel, until when: one instance settles a channel at a time.
  claimed_by text,
  claimed_until timestamptz,
  failures integer NOT NULL DEFAULT 0,
  last_error text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX session_channels_unsettled ON session_channels (unsettled_since)
  WHERE unsettled_since IS NOT NULL AND closed_at IS NULL;

-- A session payment names its channel and the channel's cumulative amount once it was billed: it is
-- settled by the first settlement of that channel reaching that amount.
ALTER TABLE payments ADD COLUMN channel_id text;
ALTER TABLE payments ADD COLUMN channel_cumulative_atomic bigint;
CREATE INDEX payments_accrued_by_channel ON payments (channel_id, channel_cumulative_atomic)
  WHERE state = 'accrued';
