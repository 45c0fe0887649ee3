import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DEMO_ACCOUNT_ID, seedDemoAccount } from "../src/demo.ts";
import { balanceOf } from "../src/store/runs.ts";
import { bearer, gatewayHarness, postJson } from "./support/harness.ts";

const inspect = { provider: "markets", endpoint: "/pm/event", method: "GET" };

describe("the demo account for npm start", () => {
  test("is created once with credit; each seeding hands out a working key and revokes the one before", async ({
    db,
  }) => {
    const { app } = gatewayHarness(db);
    const first = await seedDemoAccount(db);
    const second = await seedDemoAccount(db);
    expect(first.accountId).toBe(DEMO_ACCOUNT_ID);
    expect(second).toMatchObject({ accountId: DEMO_ACCOUNT_ID, balance: "10" });
    expect((await postJson(app, "/v1/inspect", inspect, bearer(first.gatewayKey))).status).toBe(401);
    const res = await postJson(app, "/v1/inspect", inspect, bearer(second.gatewayKey));
    expect(res.status).toBe(200);
    expect((await json(res)).endpoint).toBe("/pm/event");
    expect(await balanceOf(db, DEMO_ACCOUNT_ID)).toBe(10_000_000n);
    const [credits] = await db.query<{ rows: number }>(
      "SELECT count(*)::int AS rows FROM gateway.ledger WHERE account_id = $1 AND kind = 'credit'",
      [DEMO_ACCOUNT_ID],
    );
    expect(credits?.rows).toBe(1);
  });

  test("concurrent seedings leave exactly one working demo key", async ({ db }) => {
    const { app } = gatewayHarness(db);
    const seeded = await Promise.all([seedDemoAccount(db), seedDemoAccount(db), seedDemoAccount(db)]);
    const statuses = await Promise.all(
      seeded.map(
        async (demo) => (await postJson(app, "/v1/inspect", inspect, bearer(demo.gatewayKey))).status,
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
  });
});
