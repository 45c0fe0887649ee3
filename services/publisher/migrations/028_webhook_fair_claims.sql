-- Webhook claims shared fairly (issue 18 audit, finding 2): one account's receivers that never
-- answer may no longer hold every delivery slot (src/webhooks/delivery-store.ts, claimDueDeliveries).
--
-- webhook_endpoints:
--   consecutive_timeouts  attempts in a row that got no answer within the time limit (any other
--                         outcome, an answer or a quick failure, ends the streak)
--   paused_until          after a few timeouts in a row (retry-schedule.ts, endpointPauseMs) the
--                         endpoint is paused as a whole: none of its deliveries is claimed before
--                         this time (they wait, their attempts unspent); NULL when not paused
ALTER TABLE webhook_endpoints
  ADD COLUMN consecutive_timeouts integer NOT NULL DEFAULT 0,
  ADD COLUMN paused_until timestamptz;

-- The claim visits endpoints with pending deliveries (a skip scan) and takes each one's oldest due.
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at, id)
  WHERE status = 'pending';

-- Deliveries in flight (a live lease; a settlement clears it): counted per endpoint and account.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id, leased_until)
  WHERE leased_until IS NOT NULL;
