import { json, test } from "@app/testkit";
import { afterAll, describe, expect } from "vitest";
import { type FortuneHarness, spareAccount, startFortune } from "../testing/harness.ts";

const SHARED = { FORTUNE_PUBLIC_URL: "http://fortune.test", FORTUNE_PREMIUM_LIMIT: "1" };
const key = spareAccount(8);

describe("several instances on one database, and a restart", () => {
  const running: FortuneHarness[] = [];
  afterAll(async () => {
    for (const instance of running) await instance.stop();
  });

  const title = "nonces, favorites, entitlements and premium counters are shared; they survive a restart";
  // Three instances each start a chain of their own: more than the default test budget.
  test(title, { timeout: 180_000 }, async ({ db }) => {
    const a = await startFortune(db, SHARED);
    const b = await startFortune(db, SHARED);
    running.push(a, b);
    await a.fundedWallet(key);

    const probe = { method: "POST", body: JSON.stringify({ fortune: "probe" }) };
    const header = await a.signIn(key, "/api/fortune/favorites", probe);
    const save = (h: FortuneHarness, signIn: string, fortune: string) =>
      fetch(`${h.url}/api/fortune/favorites`, {
        method: "POST",
        headers: { "content-type": "application/json", "sign-in-with-x": signIn },
        body: JSON.stringify({ fortune }),
      });
    expect((await save(b, header, "issued by A, spent at B")).status).toBe(200);
    const replayed = await save(a, header, "again at A");
    expect(replayed.status).toBe(402);
    expect((await json(replayed)).error).toBe("siwx_nonce_used");

    const paid = await a.payingFetch(key)(`${a.url}/api/fortune/membership`, { method: "POST" });
    expect(paid.status).toBe(200);
    const member = await b.signIn(key, "/api/fortune/membership", { method: "POST" });
    const free = await fetch(`${b.url}/api/fortune/membership`, {
      method: "POST",
      headers: { "sign-in-with-x": member },
    });
    expect(free.status).toBe(200);
    expect(free.headers.get("payment-response")).toBeNull();

    const premium = (h: FortuneHarness, f: typeof fetch = fetch) =>
      f(`${h.url}/api/fortune/premium`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ category: "career" }),
      });
    expect((await premium(a, a.payingFetch(key))).status).toBe(200);
    expect((await premium(b)).status).toBe(429);

    await a.stop();
    running.splice(running.indexOf(a), 1);
    const c = await startFortune(db, SHARED);
    running.push(c);
    const list = await fetch(`${c.url}/api/fortune/favorites`, {
      headers: { "sign-in-with-x": await c.signIn(key, "/api/fortune/favorites") },
    });
    expect((await json(list)).favorites.map((f: { fortune: string }) => f.fortune)).toEqual([
      "issued by A, spent at B",
    ]);
    expect((await premium(c)).status).toBe(429);
    const again = await c.signIn(key, "/api/fortune/membership", { method: "POST" });
    expect(
      (
        await fetch(`${c.url}/api/fortune/membership`, {
          method: "POST",
          headers: { "sign-in-with-x": again },
        })
      ).status,
    ).toBe(200);
    expect((await c.ledger.forRoute("fortune_membership")).filter((p) => p.state === "settled")).toHaveLength(
      1,
    );
  });
});
