import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

describe("GET /api/v1/connections", () => {
  test("success: lists only the account's connections with id, platform, account_name, account_id", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const other = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    await seedConnection(db, other.accountId, "tiktok");
    const { app } = publisherApp(db);
    const res = await call(app, "GET", "/api/v1/connections", key);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      connections: [
        {
          id: youtube,
          platform: "youtube",
          account_name: "youtube account",
          account_id: expect.stringMatching(/^ext_/),
        },
      ],
    });
  });

  test("errors: POST is 405", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    expect((await call(app, "POST", "/api/v1/connections", key, {})).status).toBe(405);
  });

  test("security: no key 401, a revoked key 401, an upload-only key 403", async ({ db }) => {
    const { key, keyId } = await seedAccount(db);
    const uploader = await seedAccount(db, { scopes: ["media:write"] });
    const { app } = publisherApp(db);
    expect((await call(app, "GET", "/api/v1/connections", undefined)).status).toBe(401);
    expect((await call(app, "GET", "/api/v1/connections", uploader.key)).status).toBe(403);
    await db.query("UPDATE publisher.api_keys SET revoked_at = now() WHERE id = $1", [keyId]);
    const revoked = await call(app, "GET", "/api/v1/connections", key);
    expect(revoked.status).toBe(401);
    expect(await json(revoked)).toMatchObject({ error: "UNAUTHORIZED" });
  });
});
