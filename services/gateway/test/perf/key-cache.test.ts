import { lastUseMarksSettled } from "@app/edge";
import { fakeClock, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { AccountStore } from "../../src/store/accounts.ts";
import { BalanceView } from "../../src/store/balances.ts";
import { KEY_CACHE_TTL_MS, KeyCache } from "../../src/store/key-cache.ts";
import { openAccount } from "../support/harness.ts";

describe("the gateway key cache", () => {
  test("serves a key from memory for its TTL; a revocation made elsewhere is honoured once it ends", async ({
    db,
  }) => {
    let now = 0;
    const accounts = new AccountStore(db);
    let lookups = 0;
    const lookupHash = accounts.lookupHash.bind(accounts);
    accounts.lookupHash = (hash) => {
      lookups += 1;
      return lookupHash(hash);
    };
    const cache = new KeyCache(accounts, new BalanceView(), () => now);
    const caller = await openAccount(db);
    expect(await cache.authenticate(caller.key)).toMatchObject({
      accountId: caller.accountId,
      keyId: caller.keyId,
    });
    expect(await cache.authenticate(caller.key)).toBeDefined();
    expect(lookups).toBe(1);
    // Revoked by another process (the CLI): nothing tells this one.
    await db.query("UPDATE gateway.api_keys SET revoked_at = now() WHERE id = $1", [caller.keyId]);
    now += KEY_CACHE_TTL_MS - 1;
    expect(await cache.authenticate(caller.key)).toBeDefined();
    now += 1;
    expect(await cache.authenticate(caller.key)).toBeUndefined();
    expect(lookups).toBe(2);
  });

  test("forgets every key at once when this process revokes one; never caches an unknown key", async ({
    db,
  }) => {
    const accounts = new AccountStore(db);
    const cache = new KeyCache(accounts, new BalanceView(), () => 0);
    const caller = await openAccount(db);
    expect(await cache.authenticate(caller.key)).toBeDefined();
    await new AccountStore(db).revokeKey(caller.keyId, new Date());
    expect(await cache.authenticate(caller.key)).toBeUndefined();
    expect(await cache.authenticate("gwk_unknown")).toBeUndefined();
    const other = await openAccount(db);
    const [first, second] = await Promise.all([cache.authenticate(other.key), cache.authenticate(other.key)]);
    expect(first).toEqual(second);
  });

  test("records the key's last use with its lookup, at most once a minute", async ({ db }) => {
    let now = 0;
    const clock = fakeClock("2026-06-15T06:00:00Z");
    const cache = new KeyCache(new AccountStore(db, clock), new BalanceView(), () => now);
    const caller = await openAccount(db);
    const lastUsed = async () => {
      await lastUseMarksSettled();
      const [row] = await db.query<{ at: Date | null }>(
        "SELECT last_used_at AS at FROM gateway.api_keys WHERE id = $1",
        [caller.keyId],
      );
      return row?.at?.toISOString();
    };
    expect(await lastUsed()).toBeUndefined();
    await cache.authenticate(caller.key);
    expect(await lastUsed()).toBe("2026-06-15T06:00:00.000Z");
    now += KEY_CACHE_TTL_MS;
    clock.advance(30_000);
    await cache.authenticate(caller.key);
    expect(await lastUsed()).toBe("2026-06-15T06:00:00.000Z");
    now += KEY_CACHE_TTL_MS;
    clock.advance(30_000);
    await cache.authenticate(caller.key);
    expect(await lastUsed()).toBe("2026-06-15T06:01:00.000Z");
  });

  test("reads the account's balance with the key, for free runs to show", async ({ db }) => {
    const balances = new BalanceView();
    const cache = new KeyCache(new AccountStore(db), balances, () => 0);
    const caller = await openAccount(db, 1_500_000n);
    await cache.authenticate(caller.key);
    expect(balances.get(caller.accountId)).toBe(1_500_000n);
  });
});
