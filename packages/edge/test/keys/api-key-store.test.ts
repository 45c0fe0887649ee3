import { type Clock, newId } from "@app/core";
import type { Queryable } from "@app/db";
import { fakeClock, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { apiKeyHash } from "../../src/keys/api-key.ts";
import { InMemoryApiKeyStore } from "../../src/keys/api-key-store.fake.ts";
import type { ApiKeyStore } from "../../src/keys/api-key-store.ts";
import { DatabaseApiKeyStore } from "../../src/keys/database-api-key-store.ts";
import { lastUseMarksSettled } from "../../src/keys/last-used.ts";
import { keysTable } from "./keys-table.ts";

type Scope = "read" | "write";

const implementations: Record<string, (db: Queryable, clock: Clock) => Promise<ApiKeyStore<Scope>>> = {
  "a service's keys table": async (db, clock) =>
    new DatabaseApiKeyStore<Scope>(db, {
      table: await keysTable(db),
      ownerColumn: "owner_id",
      keyPrefix: "tk",
      clock,
    }),
  "the in-memory fake": async (_db, clock) => new InMemoryApiKeyStore<Scope>("tk", clock),
};

describe.each(Object.entries(implementations))("API keys in %s", (_name, makeStore) => {
  test("an issued key verifies as its owner with its scopes, shown once with its prefix", async ({ db }) => {
    const store = await makeStore(db, fakeClock());
    const ownerId = newId("own");
    const issued = await store.issue({ ownerId, label: "ci", scopes: ["read"] });
    expect(issued).toMatchObject({ ownerId, label: "ci", scopes: ["read"], prefix: issued.key.slice(0, 7) });
    expect(issued.key).toMatch(/^tk_[A-Za-z0-9_-]{43}$/);
    expect(await store.verify(issued.key)).toEqual({ keyId: issued.id, ownerId, scopes: ["read"] });
  });

  test("an unknown, altered, empty or overlong key verifies as no one", async ({ db }) => {
    const store = await makeStore(db, fakeClock());
    const { key } = await store.issue({ ownerId: newId("own") });
    for (const presented of [`${key}x`, key.slice(0, -1), "tk_guess", "", "k".repeat(5000)]) {
      expect(await store.verify(presented)).toBeUndefined();
    }
  });

  test("a key without a label or scopes gets the table's default label and no scopes", async ({ db }) => {
    const store = await makeStore(db, fakeClock());
    const issued = await store.issue({ ownerId: newId("own") });
    expect(issued).toMatchObject({ label: "", scopes: [] });
    expect((await store.verify(issued.key))?.scopes).toEqual([]);
  });

  test("a revoked key stops verifying and cannot be revoked twice; the owner's other keys go on", async ({
    db,
  }) => {
    const store = await makeStore(db, fakeClock());
    const ownerId = newId("own");
    const [first, second] = [await store.issue({ ownerId }), await store.issue({ ownerId, label: "spare" })];
    expect(await store.revoke(first.id, new Date())).toBe(true);
    expect(await store.revoke(first.id, new Date())).toBe(false);
    expect(await store.revoke("key_none", new Date())).toBe(false);
    expect(await store.verify(first.key)).toBeUndefined();
    expect(await store.verify(second.key)).toMatchObject({ keyId: second.id });
  });

  test("revoking by label ends only the owner's active keys bearing it", async ({ db }) => {
    const store = await makeStore(db, fakeClock());
    const [ownerId, otherOwner] = [newId("own"), newId("own")];
    const demo = [
      await store.issue({ ownerId, label: "demo" }),
      await store.issue({ ownerId, label: "demo" }),
    ];
    const kept = await store.issue({ ownerId, label: "laptop" });
    const elsewhere = await store.issue({ ownerId: otherOwner, label: "demo" });
    expect(await store.revokeLabelled(ownerId, "demo", new Date())).toBe(2);
    expect(await store.revokeLabelled(ownerId, "demo", new Date())).toBe(0);
    for (const issued of demo) expect(await store.verify(issued.key)).toBeUndefined();
    expect(await store.verify(kept.key)).toBeDefined();
    expect(await store.verify(elsewhere.key)).toBeDefined();
  });

  test("an owner's list holds its keys' records, oldest first, never a key", async ({ db }) => {
    const clock = fakeClock("2026-06-15T06:00:00Z");
    const store = await makeStore(db, clock);
    const ownerId = newId("own");
    const first = await store.issue({ ownerId, label: "first", scopes: ["read", "write"] });
    const second = await store.issue({ ownerId, label: "second" });
    await store.issue({ ownerId: newId("own"), label: "not mine" });
    const at = new Date("2026-06-15T07:00:00Z");
    await store.revoke(second.id, at);
    const listed = await store.list(ownerId);
    expect(listed.map((record) => [record.id, record.label, record.revokedAt])).toEqual([
      [first.id, "first", null],
      [second.id, "second", at],
    ]);
    expect(listed[0]).toMatchObject({
      ownerId,
      prefix: first.prefix,
      scopes: ["read", "write"],
      lastUsedAt: null,
    });
    expect(JSON.stringify(listed)).not.toContain(first.key.slice(first.prefix.length));
  });

  test("last use is recorded at most once a minute, so a key in constant use costs no write a request", async ({
    db,
  }) => {
    const clock = fakeClock("2026-06-15T06:00:00Z");
    const store = await makeStore(db, clock);
    const ownerId = newId("own");
    const { key } = await store.issue({ ownerId });
    const lastUsed = async () => {
      await lastUseMarksSettled();
      return (await store.list(ownerId))[0]?.lastUsedAt?.toISOString();
    };
    expect(await lastUsed()).toBeUndefined();
    await store.verify(key);
    expect(await lastUsed()).toBe("2026-06-15T06:00:00.000Z");
    clock.advance(59_999);
    await store.verify(key);
    expect(await lastUsed()).toBe("2026-06-15T06:00:00.000Z");
    clock.advance(1);
    await store.verify(key);
    expect(await lastUsed()).toBe("2026-06-15T06:01:00.000Z");
    await store.verify("tk_unknown");
    expect(await lastUsed()).toBe("2026-06-15T06:01:00.000Z");
  });
});

describe("API keys in a service's keys table", () => {
  test("the table keeps the key's SHA-256 and its shown prefix, never the key", async ({ db }) => {
    const store = new DatabaseApiKeyStore(db, {
      table: await keysTable(db),
      ownerColumn: "owner_id",
      keyPrefix: "tk",
    });
    const issued = await store.issue({ ownerId: newId("own") });
    const [row] = await db.query<Record<string, unknown>>("SELECT * FROM keys_test.api_keys WHERE id = $1", [
      issued.id,
    ]);
    expect(row).toMatchObject({ key_hash: apiKeyHash(issued.key), prefix: issued.prefix });
    expect(JSON.stringify(row)).not.toContain(issued.key.slice(issued.prefix.length));
  });

  test("the table, owner column and key prefix must be plain identifiers", ({ db }) => {
    const made =
      (table: string, ownerColumn: string, keyPrefix = "tk") =>
      () =>
        new DatabaseApiKeyStore(db, { table, ownerColumn, keyPrefix });
    expect(made("keys_test.api_keys", "owner_id")).not.toThrow();
    expect(made("api_keys", "owner_id")).toThrow(RangeError);
    expect(made("keys_test.api_keys; DROP TABLE x", "owner_id")).toThrow(RangeError);
    expect(made('keys_test."api_keys"', "owner_id")).toThrow(RangeError);
    expect(made("keys_test.api_keys", "owner_id = owner_id OR true")).toThrow(RangeError);
    expect(made("keys_test.api_keys", "owner_id", "Bad_")).toThrow(RangeError);
  });
});
