import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { KeyPolicyStore } from "../../src/store/key-policies.ts";
import { FakeUpstreamClient } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
import { callTool, connectMcp } from "../support/mcp-client.ts";
import { serveGateway } from "../support/served.ts";
import { keyWithPolicy, marketsRun } from "./policy-support.ts";

describe("a key's own rate", () => {
  test("overrides the gateway's default for that key alone: 2 runs a minute, the third is 429", async ({
    db,
  }) => {
    const h = gatewayHarness(db, { upstream: new FakeUpstreamClient(), runsPerMinute: 300 });
    const owner = await openAccount(db);
    const slow = await keyWithPolicy(db, owner, { ratePerMinute: 2 });

    for (let n = 0; n < 2; n += 1) {
      const ran = await postJson(h.app, "/v1/run", marketsRun(), bearer(slow.key));
      expect(ran.status).toBe(200);
      expect(ran.headers.get("ratelimit-limit")).toBe("2");
    }
    const refused = await postJson(h.app, "/v1/run", marketsRun(), bearer(slow.key));
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({
      error: "RATE_LIMITED",
      message: expect.stringContaining("2 runs a minute"),
      limit: 2,
      windowSeconds: 60,
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);

    const other = await postJson(h.app, "/v1/run", marketsRun(), bearer(owner.key));
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit-limit")).toBe("300");
    await h.close();
  });

  test("holds over MCP too: the key's third run a minute is a RATE_LIMITED result", async ({ db }) => {
    const gateway = await serveGateway(db, { upstream: new FakeUpstreamClient() });
    const owner = await openAccount(db);
    const slow = await keyWithPolicy(db, owner, { ratePerMinute: 2 });
    const client = await connectMcp(gateway.url, bearer(slow.key));
    for (let n = 0; n < 2; n += 1) expect((await callTool(client, "run", marketsRun())).isError).toBe(false);
    const refused = await callTool(client, "run", marketsRun());
    expect(refused.isError).toBe(true);
    expect(refused.body).toMatchObject({ error: "RATE_LIMITED", limit: 2 });
    await client.close();
    await gateway.close();
  });

  test("a rate lowered while the key has tokens left applies at once: its bucket holds no more than the new burst", async ({
    db,
  }) => {
    const h = gatewayHarness(db, { upstream: new FakeUpstreamClient(), runsPerMinute: 100 });
    const owner = await openAccount(db);
    expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(owner.key))).status).toBe(200);
    await new KeyPolicyStore(db).change(owner.keyId, { ratePerMinute: 1 });
    expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(owner.key))).status).toBe(200);
    const refused = await postJson(h.app, "/v1/run", marketsRun(), bearer(owner.key));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("ratelimit-limit")).toBe("1");
    await h.close();
  });
});
