-- Shops: a name, the IANA time zone their hours are kept in, and the ISO 4217 currency of their prices.
CREATE TABLE shops (
  id text PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  time_zone text NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Weekly opening hours in the shop's time zone: ISO weekday (1 = Monday … 7 = Sunday) and minutes
-- after local midnight; 1440 closes at the next midnight. A day may have several windows.
CREATE TABLE opening_hours (
  shop_id text NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  weekday smallint NOT NULL CHECK (weekday BETWEEN 1 AND 7),
  opens_at smallint NOT NULL CHECK (opens_at BETWEEN 0 AND 1439),
  closes_at smallint NOT NULL CHECK (closes_at BETWEEN 1 AND 1440),
  CHECK (opens_at < closes_at),
  PRIMARY KEY (shop_id, weekday, opens_at)
);

-- Whole local days on which the shop is closed whatever its weekly hours say.
CREATE TABLE closures (
  shop_id text NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  day date NOT NULL,
  reason text,
  PRIMARY KEY (shop_id, day)
);

-- What a shop offers. Capacity is how many people the service takes at once (chairs, seats).
CREATE TABLE services (
  id text PRIMARY KEY,
  shop_id text NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  duration_minutes integer NOT NULL CHECK (duration_minutes BETWEEN 5 AND 720),
  price_minor bigint NOT NULL CHECK (price_minor >= 0),
  capacity integer NOT NULL CHECK (capacity BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX services_shop ON services (shop_id, name);

-- Booked places. A booking holds party_size of its service's capacity from starts_at to ends_at.
CREATE TABLE bookings (
  id text PRIMARY KEY,
  shop_id text NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  service_id text NOT NULL REFERENCES services (id) ON DELETE CASCADE,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  party_size integer NOT NULL CHECK (party_size >= 1),
  customer_name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (starts_at < ends_at)
);
CREATE INDEX bookings_service_time ON bookings (service_id, starts_at);

-- Shop API keys: only the SHA-256 of the key is kept (hex); the key itself is shown once.
CREATE TABLE shop_keys (
  id text PRIMARY KEY,
  shop_id text NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  label text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX shop_keys_shop ON shop_keys (shop_id);

-- Fixed-window request counters per key and action, shared by every instance on the database.
CREATE TABLE rate_limit_windows (
  key_id text NOT NULL REFERENCES shop_keys (id) ON DELETE CASCADE,
  action text NOT NULL CHECK (action IN ('read', 'booking')),
  window_start timestamptz NOT NULL,
  hits integer NOT NULL CHECK (hits >= 1),
  PRIMARY KEY (key_id, action, window_start)
);
