import { test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { AccountStore } from "../../src/store/accounts.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { type FakeServer, fakeShop } from "../support/fake-upstreams.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const SHOP_KEY = "shk_replay_owner_key_0123456789";

let shop: FakeServer;
beforeAll(async () => {
  shop = await fakeShop(SHOP_KEY);
});
afterAll(() => shop.close());

const SHOP_RUN = { provider: "shop", endpoint: "/api/shops/agent-availability", method: "GET", input: {} };

/**
 * Attack: another gateway key of the same account that knew an `Idempotency-Key` read the stored
 * answer of a run made with the caller's upstream key, sending no upstream key or a wrong one.
 */
describe("an idempotent replay of a run that took an upstream key", () => {
  test("is refused without that upstream key (422), and replayed with it", async ({ db }) => {
    const h = gatewayHarness(db, { urls: { shop: shop.url } });
    const owner = await openAccount(db);
    const other = await new AccountStore(db).issueKey(owner.accountId, "other");
    const idempotencyKey = { "idempotency-key": "shop-read-1" };
    const first = await postJson(h.app, "/v1/run", SHOP_RUN, {
      ...bearer(owner.key),
      ...idempotencyKey,
      "x-upstream-key": SHOP_KEY,
    });
    expect(first.status).toBe(200);
    const answer = await first.text();
    expect(JSON.parse(answer).output.shop.name).toBe("Test Barbers");
    const calls = shop.seen.length;

    const upstreamKeys: Record<string, string>[] = [{}, { "x-upstream-key": "shk_wrong_key_0123456789" }];
    for (const upstreamKey of upstreamKeys) {
      const replay = await postJson(h.app, "/v1/run", SHOP_RUN, {
        ...bearer(other.key),
        ...idempotencyKey,
        ...upstreamKey,
      });
      const body = await replay.text();
      expect(replay.status, body).toBe(422);
      expect(JSON.parse(body).error).toBe("IDEMPOTENCY_KEY_REUSED");
      expect(body).not.toContain("Test Barbers");
      expect(replay.headers.get("idempotent-replayed")).toBeNull();
    }
    const viaBody = await postJson(
      h.app,
      "/v1/run",
      { ...SHOP_RUN, upstreamKey: SHOP_KEY },
      { ...bearer(other.key), ...idempotencyKey },
    );
    expect(viaBody.status).toBe(200);
    expect(viaBody.headers.get("idempotent-replayed")).toBe("true");
    expect(await viaBody.text()).toBe(answer);
    expect(shop.seen.length).toBe(calls);

    const stored = await db.query<{ row: string }>("SELECT t::text AS row FROM edge.idempotency_keys t");
    expect(stored.map((row) => row.row).join("\n")).not.toContain(SHOP_KEY);
    await h.close();
  });

  test("of a tool that takes no upstream key replays whatever upstream key comes with it", async ({ db }) => {
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { title: "Fed" }));
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    const run = {
      provider: "markets",
      endpoint: "/pm/event",
      method: "GET",
      input: { queryParams: { ref: "x" } },
    };
    const headers = { ...bearer(caller.key), "idempotency-key": "markets-1" };
    const first = await postJson(h.app, "/v1/run", run, headers);
    expect(first.status).toBe(200);
    const again = await postJson(h.app, "/v1/run", run, { ...headers, "x-upstream-key": "anything" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(await first.text());
    expect(upstream.requests).toHaveLength(1);
    await h.close();
  });
});
