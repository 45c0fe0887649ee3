import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { credit } from "../../src/store/ledger.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const event = {
  provider: "markets",
  endpoint: "/pm/event",
  method: "GET",
  input: { queryParams: { ref: "x" } },
};

describe("audit: the balance in a free run's envelope", () => {
  // src/runner/run-tool.ts finish() for free runs answers deps.balances.get(accountId): the value
  // the KeyCache read at its last lookup. README: "`balance` what is left". A credit (CLI, or any
  // path other than this instance's own statements) is not shown until the key is looked up again.
  test("shows a credit made before the run", async ({ db }) => {
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    const first = (await (await postJson(h.app, "/v1/run", event, bearer(caller.key))).json()) as {
      balance: { amount: string };
    };
    expect(first.balance.amount).toBe("0");
    await credit(db, caller.accountId, 10_000_000n, "top-up");
    const second = (await (await postJson(h.app, "/v1/run", event, bearer(caller.key))).json()) as {
      balance: { amount: string };
    };
    expect(second.balance.amount).toBe("10");
    await h.close();
  });
});
