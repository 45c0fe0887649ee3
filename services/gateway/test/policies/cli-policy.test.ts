import type { Database } from "@app/db";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { runCli } from "../../src/cli/run.ts";
import { FakeUpstreamClient } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
import { configuredPrices, LIST_POSTS, MARKETS_EVENT, marketsRun, SHOP_TOOL } from "./policy-support.ts";

/** The CLI on the test database (left open after each command), its output captured. */
function operatorCli(db: Database) {
  return async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      openDatabase: async () => ({ ...db, close: async () => undefined }),
      io: { out: (text) => out.push(text), err: (text) => err.push(text) },
    });
    const text = out.join("\n");
    return { code, err: err.join("\n"), result: code === 0 ? JSON.parse(text) : undefined };
  };
}

describe("npm run gateway -- keys … (policies)", () => {
  test("keys create --providers markets --daily-cap 0.02 issues a key that sees markets alone and spends 0.02 a day", async ({
    db,
  }) => {
    const cli = operatorCli(db);
    const owner = await openAccount(db, 1_000_000n);
    const h = gatewayHarness(db, { upstream: new FakeUpstreamClient(), toolPrices: configuredPrices() });
    const created = await cli(
      "keys",
      "create",
      "--account",
      owner.accountId,
      "--label",
      "agent",
      "--providers",
      "markets",
      "--daily-cap",
      "0.02",
    );
    expect(created.code).toBe(0);
    expect(created.result.policy).toEqual({
      allow: ["markets"],
      dailyCap: "0.02",
      toolCaps: {},
      ratePerMinute: null,
    });
    const key = created.result.key as string;

    expect((await postJson(h.app, "/v1/inspect", SHOP_TOOL, bearer(key))).status).toBe(404);
    for (let n = 0; n < 2; n += 1)
      expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(key))).status).toBe(200);
    expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(key))).status).toBe(402);

    await h.deps.held.flush(); // priced runs are settled behind their answers
    const shown = await cli("keys", "policy", "--key", created.result.id);
    expect(shown.result).toMatchObject({
      key: created.result.id,
      policy: { allow: ["markets"], dailyCap: "0.02" },
      spentToday: { total: "0.02", tools: { [MARKETS_EVENT]: "0.02" } },
    });
    await h.close();
  });

  test("keys policy changes what it is given and clears with none, all and default", async ({ db }) => {
    const cli = operatorCli(db);
    const owner = await openAccount(db);
    const changed = await cli(
      "keys",
      "policy",
      "--key",
      owner.keyId,
      "--providers",
      "markets",
      "--tools",
      LIST_POSTS,
      "--tool-caps",
      `${MARKETS_EVENT}=0.05`,
      "--rate",
      "60",
    );
    expect(changed.code).toBe(0);
    expect(changed.result.policy).toEqual({
      allow: ["markets", LIST_POSTS],
      dailyCap: null,
      toolCaps: { [MARKETS_EVENT]: "0.05" },
      ratePerMinute: 60,
    });
    const cleared = await cli(
      "keys",
      "policy",
      "--key",
      owner.keyId,
      "--providers",
      "all",
      "--tool-caps",
      "none",
      "--rate",
      "default",
    );
    expect(cleared.result.policy).toEqual({ allow: null, dailyCap: null, toolCaps: {}, ratePerMinute: null });
    const h = gatewayHarness(db);
    expect(await json(await postJson(h.app, "/v1/inspect", SHOP_TOOL, bearer(owner.key)))).toMatchObject({
      provider: "shop",
    });
    await h.close();
  });

  test("an invalid policy is refused, naming what is wrong, and issues no key", async ({ db }) => {
    const cli = operatorCli(db);
    const owner = await openAccount(db);
    const unknown = await cli("keys", "create", "--account", owner.accountId, "--providers", "florist");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("allow.0: names no provider or tool");
    expect(unknown.err).toContain("Providers: shop, publisher, markets.");
    for (const options of [
      ["--daily-cap=-1"],
      ["--daily-cap", "0.0000001"],
      ["--tool-caps", "markets=1"],
      ["--tool-caps", `${MARKETS_EVENT}`],
      ["--rate", "0"],
      ["--rate", "fast"],
    ]) {
      const refused = await cli("keys", "create", "--account", owner.accountId, ...options);
      expect(refused.code, options.join(" ")).toBe(1);
    }
    const keys = await cli("keys", "list", "--account", owner.accountId);
    expect(keys.result.keys).toHaveLength(1);
    const missing = await cli("keys", "policy", "--key", "key_unknown");
    expect(missing.code).toBe(1);
    expect(missing.err).toBe("There is no active key key_unknown.");
  });
});
