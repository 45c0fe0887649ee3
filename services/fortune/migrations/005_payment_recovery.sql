-- What a payment needs to be finished after its request is gone (a settlement the facilitator did
-- not confirm, a crash mid-payment): the authorisation's public facts (never its signature), to
-- ask the chain whether it was used; the response it bought, for the payer's retry once the chain
-- confirms; and whether it makes its payer a member.
ALTER TABLE payments ADD COLUMN authorization_facts jsonb;
ALTER TABLE payments ADD COLUMN response jsonb;
ALTER TABLE payments ADD COLUMN grants_entitlement boolean NOT NULL DEFAULT false;
