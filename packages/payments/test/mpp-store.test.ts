/**
 * The database-backed mppx store (PGlite by default; PostgreSQL when run with TEST_DATABASE_URL).
 */
import { createTextSealer } from "@app/core";
import { test } from "@app/testkit";
import { Store } from "mppx/server";
import { expect } from "vitest";
import { createDbStore, mppStoreTableSql } from "../src/mpp/index.ts";

const TABLE = "mpp_store_test.kv";

const ready = new WeakSet<object>();
async function storeFor(db: Parameters<typeof createDbStore>[0]["db"]): Promise<Store.AtomicStore> {
  if (!ready.has(db)) {
    await db.exec(`CREATE SCHEMA IF NOT EXISTS mpp_store_test; ${mppStoreTableSql(TABLE)}`);
    ready.add(db);
  }
  return createDbStore({ db, table: TABLE });
}

test("get / put / delete round-trip values with bigints", async ({ db }) => {
  const store = await storeFor(db);
  expect(await store.get("missing")).toBeNull();
  const value = { spent: 123_456_789_012_345_678_901n, units: 3, nested: { deposit: 10n }, list: [1n, "x"] };
  await store.put("channel", value);
  expect(await store.get("channel")).toEqual(value);
  await store.put("channel", { spent: 1n });
  expect(await store.get("channel")).toEqual({ spent: 1n });
  await store.delete("channel");
  expect(await store.get("channel")).toBeNull();
  await store.delete("channel"); // deleting a missing key is fine
});

test("update applies set / noop / delete and returns the callback's result", async ({ db }) => {
  const store = await storeFor(db);
  expect(await store.update("u", (current) => ({ op: "set", value: { n: 1n }, result: current }))).toBeNull();
  expect(await store.update("u", (current) => ({ op: "noop", result: current }))).toEqual({ n: 1n });
  expect(await store.update("u", () => ({ op: "delete", result: "gone" }))).toBe("gone");
  expect(await store.get("u")).toBeNull();
  expect(await store.update("u", () => ({ op: "noop", result: 7 }))).toBe(7);
  expect(await store.get("u")).toBeNull();
});

test("a throwing update callback writes nothing", async ({ db }) => {
  const store = await storeFor(db);
  await store.put("t", { n: 1n });
  await expect(
    store.update("t", () => {
      throw new Error("boom");
    }),
  ).rejects.toThrow("boom");
  expect(await store.get("t")).toEqual({ n: 1n });
});

test("concurrent updates of one key lose no increment (new key and existing key)", async ({ db }) => {
  const stores = [await storeFor(db), createDbStore({ db, table: TABLE })]; // two "instances"
  const increment = (key: string, i: number) =>
    stores[i % 2]!.update(key, (current) => {
      const n = ((current as { n: bigint } | null)?.n ?? 0n) + 1n;
      return { op: "set", value: { n }, result: n };
    });
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => increment("counter", i)));
  expect(await stores[0]!.get("counter")).toEqual({ n: 40n });
  // Every update saw a distinct predecessor: the results are exactly 1..40.
  expect(results.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));

  await Promise.all(Array.from({ length: 40 }, (_, i) => increment("counter", i)));
  expect(await stores[1]!.get("counter")).toEqual({ n: 80n });
});

test("replay claims (mppx tryClaim) succeed once per key", async ({ db }) => {
  const store = await storeFor(db);
  const expires = Date.now() + 60_000;
  const claims = await Promise.all(
    Array.from({ length: 10 }, () => Store.tryClaim(store, "mppx:charge:0xabc", expires)),
  );
  expect(claims.filter(Boolean)).toHaveLength(1);
});

test("the table name must be a plain identifier", async ({ db }) => {
  expect(() => createDbStore({ db, table: 'kv"; DROP TABLE x; --' })).toThrow(/invalid table name/);
  expect(() => mppStoreTableSql("a.b.c")).toThrow(/invalid table name/);
});

test("with a sealer, values are sealed at rest, bound to their key, and read back whole", async ({ db }) => {
  await storeFor(db);
  const sealer = createTextSealer("a-store-secret-of-at-least-32-characters!", "mpp-store-test");
  const store = createDbStore({ db, table: TABLE, sealer });
  const voucher = { cumulativeAmount: 3000n, signature: "0xfeedfacecafebeef" };
  await store.put("0xchannel-sealed", voucher);
  await store.update("0xchannel-sealed", (current) => ({
    op: "set",
    value: { ...(current as typeof voucher), cumulativeAmount: 4000n },
    result: undefined,
  }));
  const [row] = await db.query<{ value: string }>(`SELECT value FROM ${TABLE} WHERE key = $1`, [
    "0xchannel-sealed",
  ]);
  expect(row?.value).toMatch(/^v1\./);
  expect(row?.value).not.toContain("feedface");
  expect(await store.get("0xchannel-sealed")).toEqual({
    cumulativeAmount: 4000n,
    signature: "0xfeedfacecafebeef",
  });
  await db.query(`UPDATE ${TABLE} SET key = $2 WHERE key = $1`, ["0xchannel-sealed", "0xchannel-moved"]);
  await expect(store.get("0xchannel-moved")).rejects.toThrow();
});
