import { newId } from "@app/core";
import type { Database } from "@app/db";
import { fakeClock, openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DatabaseApiKeyStore } from "../../src/keys/database-api-key-store.ts";
import { lastUseMarksSettled } from "../../src/keys/last-used.ts";
import { keysTable } from "./keys-table.ts";

/** Two instances of a service, each its own pool of connections to the test database, for `work`. */
async function withTwoInstances(db: Database, work: (one: Database, two: Database) => Promise<void>) {
  const one = await openSecondHandle(db);
  const two = await openSecondHandle(db);
  try {
    await work(one, two);
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
}

/** Counts the writes of `last_used_at` in the keys table (a row trigger fires only on rows changed). */
async function countLastUseWrites(db: Database): Promise<() => Promise<number>> {
  await db.exec(`
    CREATE TABLE IF NOT EXISTS keys_test.last_use_writes (key_id text NOT NULL);
    CREATE OR REPLACE FUNCTION keys_test.note_last_use() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO keys_test.last_use_writes VALUES (NEW.id); RETURN NEW; END $$;
    DROP TRIGGER IF EXISTS note_last_use ON keys_test.api_keys;
    CREATE TRIGGER note_last_use AFTER UPDATE OF last_used_at ON keys_test.api_keys
      FOR EACH ROW EXECUTE FUNCTION keys_test.note_last_use();
  `);
  return async () => {
    const [row] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM keys_test.last_use_writes");
    return row?.n ?? 0;
  };
}

describe("API keys at two instances on PostgreSQL", () => {
  test("a key issued at one instance verifies at the other, and a revocation at either holds at both", async ({
    db,
  }) => {
    const table = await keysTable(db);
    await withTwoInstances(db, async (one, two) => {
      const options = { table, ownerColumn: "owner_id", keyPrefix: "tk" };
      const [here, there] = [new DatabaseApiKeyStore(one, options), new DatabaseApiKeyStore(two, options)];
      const issued = await here.issue({ ownerId: newId("own") });
      expect(await there.verify(issued.key)).toMatchObject({ keyId: issued.id });
      expect(await there.revoke(issued.id, new Date())).toBe(true);
      expect(await here.verify(issued.key)).toBeUndefined();
      expect(await here.revoke(issued.id, new Date())).toBe(false);
    });
  });

  test("a key verified by many requests at both instances at once is marked used once a minute", async ({
    db,
  }) => {
    const table = await keysTable(db);
    const writes = await countLastUseWrites(db);
    await withTwoInstances(db, async (one, two) => {
      const clock = fakeClock("2026-06-15T06:00:00Z");
      const options = { table, ownerColumn: "owner_id", keyPrefix: "tk", clock };
      const [here, there] = [new DatabaseApiKeyStore(one, options), new DatabaseApiKeyStore(two, options)];
      const { key } = await here.issue({ ownerId: newId("own") });
      const burst = () =>
        Promise.all(Array.from({ length: 20 }, (_, n) => (n % 2 === 0 ? here : there).verify(key)));
      expect((await burst()).every((verified) => verified !== undefined)).toBe(true);
      await lastUseMarksSettled();
      expect(await writes()).toBe(1);
      clock.advance(30_000);
      await burst();
      await lastUseMarksSettled();
      expect(await writes()).toBe(1);
      clock.advance(30_000);
      await burst();
      await lastUseMarksSettled();
      expect(await writes()).toBe(2);
    });
  });
});
