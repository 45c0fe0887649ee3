-- The publisher's shared model. Two halves build on it: the API (accounts, keys, uploads, posts,
-- groups, queue slots) and publishing (connections, the target state machine, workers, adapters).

CREATE TABLE accounts (
  id text PRIMARY KEY,
  name text NOT NULL,
  -- The smart schedule: queue slots are laid out in this IANA zone.
  time_zone text NOT NULL DEFAULT 'UTC',
  posts_per_day integer NOT NULL DEFAULT 1 CHECK (posts_per_day BETWEEN 1 AND 3),
  allowed_days integer[] NOT NULL DEFAULT '{0,1,2,3,4,5,6}',
  created_at timestamptz NOT NULL DEFAULT now()
);

-- API keys: SHA-256 of a high-entropy key, shown once. Scopes: posts:read, posts:write, media:write.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  key_hash text NOT NULL UNIQUE,
  label text,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

-- Connected platform accounts. Tokens are sealed (AES-256-GCM, core's sealer), never in clear.
CREATE TABLE connections (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  platform text NOT NULL CHECK (platform IN ('youtube', 'tiktok', 'bluesky')),
  account_name text NOT NULL,
  platform_account_id text NOT NULL,
  -- Sealed JSON: {accessToken, refreshToken?, expiresAt?, scope?} (Bluesky: its session).
  tokens text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'needs_reconnect')),
  status_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, platform, platform_account_id)
);

CREATE TABLE groups (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  connection_ids text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, name)
);

-- A post and what it asks of each platform. Its status is derived from its targets'
-- (src/domain/post-status.ts) and stored for listing.
CREATE TABLE posts (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  status text NOT NULL CHECK (status IN ('draft', 'scheduled', 'publishing', 'published', 'failed', 'partial')),
  -- The validated post payload, normalised (src/contracts/post.ts: PostContent).
  content jsonb NOT NULL,
  connection_ids text[] NOT NULL,
  platforms text[] NOT NULL,
  scheduled_for timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX posts_account_created ON posts (account_id, created_at DESC, id DESC);
CREATE INDEX posts_account_scheduled ON posts (account_id, scheduled_for) WHERE status IN ('scheduled', 'publishing');

-- One target per (post, connection): the unit of publishing, and the job. Workers claim due
-- targets with a conditional update (SKIP LOCKED); the platform's handle is stored before any
-- irreversible call, and afterwards a target is only polled or resumed, never re-posted.
CREATE TABLE post_targets (
  id text PRIMARY KEY,
  post_id text NOT NULL REFERENCES posts (id),
  connection_id text NOT NULL REFERENCES connections (id),
  platform text NOT NULL,
  status text NOT NULL CHECK (status IN ('scheduled', 'publishing', 'published', 'failed', 'canceled')),
  due_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  claimed_by text,
  claimed_until timestamptz,
  -- The platform's handle, saved before the irreversible step: TikTok publish_id, YouTube upload
  -- session URI, Bluesky record key.
  platform_handle jsonb,
  platform_post_id text,
  url text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (post_id, connection_id)
);
CREATE INDEX post_targets_due ON post_targets (next_attempt_at) WHERE status IN ('scheduled', 'publishing');

-- Uploaded media: the storage path, and whether the upload completed.
CREATE TABLE media (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  path text NOT NULL UNIQUE,
  content_type text NOT NULL,
  size_bytes bigint NOT NULL,
  complete boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
