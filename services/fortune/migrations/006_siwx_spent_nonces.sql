-- Sign-in nonces are stateless (HMAC-signed, issue time inside): an unanswered 402 stores nothing.
-- Only spent nonces are kept, until they would have expired, so a sign-in works once.
DROP TABLE siwx_nonces;
CREATE TABLE siwx_spent_nonces (
  nonce text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX siwx_spent_nonces_expiry ON siwx_spent_nonces (expires_at);
