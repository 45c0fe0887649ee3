-- Values in the MPP store are sealed, so their expiry (replay markers of one-shot charges) is kept
-- beside them in clear: expired markers are purged with one indexed delete.
ALTER TABLE mpp_store ADD COLUMN expires_at timestamptz;
CREATE INDEX mpp_store_expiry ON mpp_store (expires_at) WHERE expires_at IS NOT NULL;
