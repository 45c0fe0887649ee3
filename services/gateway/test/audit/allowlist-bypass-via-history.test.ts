import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { AccountStore } from "../../src/store/accounts.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { keyWithPolicy, SHOP_TOOL } from "../policies/policy-support.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const SHOP_KEY = { "x-upstream-key": "shk_history_bypass_0123456789" };
/** What the shop answered the owner: a result the limited key was never allowed to fetch. */
const SHOP_SECRET = "table-for-two-at-eight";

describe("a key limited to markets reads the history of its account", () => {
  test("it learns nothing of the shop tool its allowlist hides: no shop run listed, none readable by id", async ({
    db,
  }) => {
    const h = gatewayHarness(db, {
      upstream: new FakeUpstreamClient(() => jsonAnswer(200, { booked: SHOP_SECRET })),
    });
    const owner = await openAccount(db, 1_000_000n);
    await new AccountStore(db).setKeepRunOutput(owner.accountId, true);
    const limited = await keyWithPolicy(db, owner, { allow: ["markets"] });

    // The owner's unlimited key runs the shop tool; the limited key may not even know it exists.
    const ran = await postJson(
      h.app,
      "/v1/run",
      { ...SHOP_TOOL, input: {} },
      { ...bearer(owner.key), ...SHOP_KEY },
    );
    expect(ran.status).toBe(200);
    const shopRunId = (await json(ran)).runId as string;
    await h.deps.usage.flush();
    expect((await postJson(h.app, "/v1/inspect", SHOP_TOOL, bearer(limited.key))).status).toBe(404);

    const byProvider = await json(
      await h.app.request("/v1/runs?provider=shop", { headers: bearer(limited.key) }),
    );
    const byId = await h.app.request(`/v1/runs/${shopRunId}`, { headers: bearer(limited.key) });
    const byIdText = await byId.text();
    const usage = await h.app.request("/v1/usage", { headers: bearer(limited.key) });
    const usageText = await usage.text();

    expect(byIdText).not.toContain(SHOP_SECRET);
    expect(byId.status).toBe(404);
    expect(byProvider.runs).toEqual([]);
    expect(usageText).not.toContain('"shop"');
    await h.close();
  });
});
