-- Fixed windows: the requests a subject made in one window of a limit (DatabaseFixedWindow).
-- `namespace` names the service and the limit (`publisher`, `shop.booking`); a subject's earlier
-- windows are deleted when its next one opens.
CREATE TABLE rate_limit_windows (
  namespace text NOT NULL,
  subject text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL CHECK (hits >= 1),
  PRIMARY KEY (namespace, subject, window_start)
);

-- Token buckets: a subject's tokens at `refilled_at` (DatabaseTokenBucket).
CREATE TABLE rate_buckets (
  namespace text NOT NULL,
  subject text NOT NULL,
  tokens double precision NOT NULL,
  refilled_at timestamptz NOT NULL,
  PRIMARY KEY (namespace, subject)
);
