import type { Queryable } from "@app/db";

/** A keys table with the standard columns, as a service's migration makes it; its name. */
export async function keysTable(db: Queryable): Promise<string> {
  await db.exec(`
    CREATE SCHEMA IF NOT EXISTS keys_test;
    CREATE TABLE IF NOT EXISTS keys_test.api_keys (
      id text PRIMARY KEY,
      owner_id text NOT NULL,
      key_hash text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
      prefix text NOT NULL,
      label text NOT NULL DEFAULT '',
      scopes text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    );
  `);
  return "keys_test.api_keys";
}
