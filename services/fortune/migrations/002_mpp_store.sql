-- The MPP server's atomic store: replay markers of one-shot charges, session channels and their
-- highest vouchers. Shared by every instance so a credential works once across all of them.
CREATE TABLE mpp_store (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
