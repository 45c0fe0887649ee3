import { apiKeyHash } from "@app/edge";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { ShopKeys } from "../src/store/keys.ts";
import { availabilityPath, fakeClock, getWithKey, seedShop, shopApp } from "./support.ts";

/** Every row of every table outside the system catalogs, as text. */
async function everyRowAsText(db: Parameters<typeof seedShop>[0]): Promise<string> {
  const tables = await db.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const texts: string[] = [];
  for (const table of tables) {
    const rows = await db.query<{ row: string }>(
      `SELECT t::text AS row FROM "${table.schema}"."${table.name}" t`,
    );
    texts.push(...rows.map((r) => r.row));
  }
  return texts.join("\n");
}

describe("shop keys at rest", () => {
  test("a key is stored only as its SHA-256: the clear key is nowhere in the database", async ({ db }) => {
    const { key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock("2026-06-15T06:00:00Z") });
    expect((await getWithKey(app, availabilityPath(), key)).status).toBe(200);
    const everything = await everyRowAsText(db);
    expect(everything).toContain(apiKeyHash(key));
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(key.slice(4));
  });

  test("keys are 256-bit random secrets with a recognisable prefix, each one different", async ({ db }) => {
    const { shop } = await seedShop(db);
    const keys = new ShopKeys(db);
    const [first, second] = [await keys.issue(shop.id), await keys.issue(shop.id)];
    expect(first.key).toMatch(/^shk_[A-Za-z0-9_-]{43}$/);
    expect(first.key).not.toBe(second.key);
  });

  test("a revoked key stops working and cannot be revoked twice; the shop's other keys go on", async ({
    db,
  }) => {
    const { shop, key, keyId } = await seedShop(db);
    const keys = new ShopKeys(db);
    const other = await keys.issue(shop.id, "spare");
    expect(await keys.revoke(keyId, new Date())).toBe(true);
    expect(await keys.revoke(keyId, new Date())).toBe(false);
    expect(await keys.authenticate(key)).toBeUndefined();
    expect(await keys.authenticate(other.key)).toEqual({ keyId: other.id, shopId: shop.id });
    const revokedByLabel = Object.fromEntries(
      (await keys.list(shop.id)).map((r) => [r.label, r.revokedAt !== null]),
    );
    expect(revokedByLabel).toEqual({ test: true, spare: false });
  });
});
