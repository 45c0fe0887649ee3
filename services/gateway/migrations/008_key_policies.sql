-- Per-key policies. A key without a row (or with every setting NULL) may run every tool, with no
-- spend cap, at the gateway's default rate. Tools are named "provider endpoint METHOD"
-- ("markets /pm/event GET"), as GATEWAY_TOOL_PRICES names them.
--   allow            provider ids and tools the key may see and run; NULL: every tool
--   daily_cap_micro  the most the key may spend per UTC day, all tools together; NULL: no cap
--   rate_per_minute  runs a minute, instead of GATEWAY_RATE_LIMIT_PER_MINUTE; NULL: the default
CREATE TABLE key_policies (
  key_id text PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
  allow text[] CHECK (cardinality(allow) BETWEEN 1 AND 100),
  daily_cap_micro bigint CHECK (daily_cap_micro >= 0),
  rate_per_minute integer CHECK (rate_per_minute BETWEEN 1 AND 1000000),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The most a key may spend per UTC day on one tool.
CREATE TABLE key_tool_caps (
  key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  tool text NOT NULL,
  cap_micro bigint NOT NULL CHECK (cap_micro >= 0),
  PRIMARY KEY (key_id, tool)
);

-- What each key spent per UTC day: `tool` '' is the key's total, any other the tool's. Kept by the
-- statement that charges a priced run (which checks the caps against it, under the account's row
-- lock, so concurrent runs cannot pass a cap) and by the one that refunds it; never summed from
-- the ledger. The day is the database's UTC day of the run's charge.
CREATE TABLE key_daily_spend (
  key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  day date NOT NULL,
  tool text NOT NULL,
  spent_micro bigint NOT NULL CHECK (spent_micro >= 0),
  PRIMARY KEY (key_id, day, tool)
);
