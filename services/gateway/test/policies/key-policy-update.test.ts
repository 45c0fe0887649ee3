import type { ServiceApp } from "@app/core";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { AccountStore } from "../../src/store/accounts.ts";
import { FakeUpstreamClient } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
import { configuredPrices, keyWithPolicy, MARKETS_EVENT, marketsRun, SHOP_TOOL } from "./policy-support.ts";

function patch(app: ServiceApp, keyId: string, body: unknown, headers: Record<string, string> = {}) {
  return Promise.resolve(
    app.request(`/v1/keys/${keyId}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

describe("PATCH /v1/keys/{id}", () => {
  describe("success", () => {
    test("a key of the account sets another key's policy, which holds at once on this instance", async ({
      db,
    }) => {
      const h = gatewayHarness(db, { upstream: new FakeUpstreamClient(), toolPrices: configuredPrices() });
      const owner = await openAccount(db, 1_000_000n);
      const agent = await new AccountStore(db).issueKey(owner.accountId, "agent");
      // The agent's key is trusted from memory once used.
      expect((await postJson(h.app, "/v1/inspect", SHOP_TOOL, bearer(agent.key))).status).toBe(200);

      const res = await patch(
        h.app,
        agent.id,
        { allow: ["markets"], dailyCap: "0.02", toolCaps: { [MARKETS_EVENT]: "0.01" }, ratePerMinute: 30 },
        bearer(owner.key),
      );
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(await json(res)).toEqual({
        keyId: agent.id,
        allow: ["markets"],
        dailyCap: "0.02",
        toolCaps: { [MARKETS_EVENT]: "0.01" },
        ratePerMinute: 30,
      });

      expect((await postJson(h.app, "/v1/inspect", SHOP_TOOL, bearer(agent.key))).status).toBe(404);
      expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(agent.key))).status).toBe(200);
      const capped = await postJson(h.app, "/v1/run", marketsRun(), bearer(agent.key));
      expect(capped.status).toBe(402);
      expect(await json(capped)).toMatchObject({ error: "SPEND_CAP_REACHED", scope: "tool" });
      await h.close();
    });

    test("each field given replaces its part, null clears it, a field left out stays", async ({ db }) => {
      const h = gatewayHarness(db);
      const owner = await openAccount(db);
      const agent = await new AccountStore(db).issueKey(owner.accountId, "agent");
      await patch(h.app, agent.id, { allow: ["markets", "shop"], dailyCap: "1" }, bearer(owner.key));
      const cleared = await patch(h.app, agent.id, { allow: null, ratePerMinute: 5 }, bearer(owner.key));
      expect(await json(cleared)).toEqual({
        keyId: agent.id,
        allow: null,
        dailyCap: "1",
        toolCaps: {},
        ratePerMinute: 5,
      });
      const none = await patch(
        h.app,
        agent.id,
        { dailyCap: null, ratePerMinute: null, toolCaps: null },
        bearer(owner.key),
      );
      expect(await json(none)).toEqual({
        keyId: agent.id,
        allow: null,
        dailyCap: null,
        toolCaps: {},
        ratePerMinute: null,
      });
      await h.close();
    });

    test("a key without a policy may limit itself", async ({ db }) => {
      const h = gatewayHarness(db);
      const owner = await openAccount(db);
      expect((await patch(h.app, owner.keyId, { allow: ["markets"] }, bearer(owner.key))).status).toBe(200);
      expect((await postJson(h.app, "/v1/inspect", SHOP_TOOL, bearer(owner.key))).status).toBe(404);
      await h.close();
    });
  });

  describe("errors", () => {
    test("invalid policies are 400 VALIDATION_FAILED naming what is wrong, and change nothing", async ({
      db,
    }) => {
      const h = gatewayHarness(db);
      const owner = await openAccount(db);
      const agent = await new AccountStore(db).issueKey(owner.accountId, "agent");
      const cases: [unknown, string][] = [
        [{}, ""],
        [{ allow: [] }, "allow"],
        [{ allow: ["florist"] }, "allow.0"],
        [{ allow: ["markets /pm/events GET"] }, "allow.0"],
        [{ allow: "markets" }, "allow"],
        [{ dailyCap: "-1" }, "dailyCap"],
        [{ dailyCap: 0.1 }, "dailyCap"],
        [{ dailyCap: "0.0000001" }, "dailyCap"],
        [{ toolCaps: { "florist /bouquets GET": "1" } }, "toolCaps.florist /bouquets GET"],
        [{ toolCaps: { markets: "1" } }, "toolCaps.markets"],
        [{ toolCaps: JSON.parse('{"__proto__": "1"}') }, "toolCaps.__proto__"],
        [{ ratePerMinute: 0 }, "ratePerMinute"],
        [{ ratePerMinute: 2.5 }, "ratePerMinute"],
        [{ ratePerMinute: 1_000_001 }, "ratePerMinute"],
        [{ rate: 5 }, ""],
      ];
      for (const [body, path] of cases) {
        const res = await patch(h.app, agent.id, body, bearer(owner.key));
        expect(res.status, JSON.stringify(body)).toBe(400);
        const error = await json(res);
        expect(error.error).toBe("VALIDATION_FAILED");
        expect(
          error.issues.map((issue: { path: string }) => issue.path),
          JSON.stringify(body),
        ).toContain(path);
      }
      const malformed = await patch(h.app, agent.id, "{", bearer(owner.key));
      expect(malformed.status).toBe(400);
      const unchanged = await patch(h.app, agent.id, { ratePerMinute: null }, bearer(owner.key));
      expect(await json(unchanged)).toMatchObject({ allow: null, dailyCap: null, toolCaps: {} });
      await h.close();
    });

    test("a key with a policy of its own is 403: a limited key cannot lift its limits, nor another's", async ({
      db,
    }) => {
      const h = gatewayHarness(db);
      const owner = await openAccount(db);
      const limited = await keyWithPolicy(db, owner, { dailyCapMicro: 1n });
      for (const target of [limited.keyId, owner.keyId]) {
        const res = await patch(h.app, target, { dailyCap: null }, bearer(limited.key));
        expect(res.status).toBe(403);
        expect((await json(res)).error).toBe("FORBIDDEN");
      }
      await h.close();
    });

    test("a key of another account, a revoked key or an unknown id is 404 KEY_NOT_FOUND", async ({ db }) => {
      const h = gatewayHarness(db);
      const owner = await openAccount(db);
      const stranger = await openAccount(db);
      const revoked = await new AccountStore(db).issueKey(owner.accountId, "old");
      await new AccountStore(db).revokeKey(revoked.id, new Date());
      for (const id of [stranger.keyId, revoked.id, "key_unknown"]) {
        const res = await patch(h.app, id, { allow: ["markets"] }, bearer(owner.key));
        expect(res.status).toBe(404);
        expect(await json(res)).toEqual({
          error: "KEY_NOT_FOUND",
          message: "This account has no active key with this id.",
          keyId: id,
        });
      }
      // The stranger's key was left as it was.
      expect((await postJson(h.app, "/v1/inspect", SHOP_TOOL, bearer(stranger.key))).status).toBe(200);
      await h.close();
    });

    test("without a valid gateway key it is 401, before the body is read", async ({ db }) => {
      const h = gatewayHarness(db);
      const owner = await openAccount(db);
      for (const headers of [{}, bearer("gwk_not_a_key"), bearer(`${owner.key}x`)]) {
        const res = await patch(h.app, owner.keyId, "{not json", headers);
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toContain("Bearer");
      }
      await h.close();
    });
  });
});
