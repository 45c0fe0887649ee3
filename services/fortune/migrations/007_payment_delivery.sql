-- Whether the response a payment bought has been handed out. A spent authorisation is public (it
-- is in the settlement's calldata), so presenting it again redeems a response only while this is
-- false; a later replay needs a fresh authorisation from the same payer.
ALTER TABLE payments ADD COLUMN response_delivered boolean NOT NULL DEFAULT false;
