import { systemClock } from "@app/core";
import { DEMO_TIKTOK } from "@app/sandbox/demo";
import { test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { createTokenVault } from "../../src/connections/token-vault.ts";
import { sandboxAdapters } from "../../src/demo.ts";
import { findConnection, secretsCodec } from "../../src/store/connections.ts";
import {
  requestsOf,
  type Sandbox,
  sandboxPost,
  seedDemo,
  startSandbox,
  testSealer,
} from "../publishing-support.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const vaultFor = (db: Parameters<typeof seedDemo>[0]) =>
  createTokenVault({ db, sealer: testSealer(), adapters: sandboxAdapters(sandbox.url), clock: systemClock });

const expireInDatabase = async (db: Parameters<typeof seedDemo>[0], connectionId: string) => {
  const codec = secretsCodec(testSealer());
  const row = await findConnection(db, connectionId);
  if (!row) throw new Error("no connection");
  const secrets = { ...codec.open(row), expiresAt: new Date(Date.now() - 1000).toISOString() };
  await db.query("UPDATE publisher.connections SET tokens = $2 WHERE id = $1", [
    connectionId,
    codec.seal(connectionId, secrets),
  ]);
};

describe("lazy token refresh under a per-connection lock", () => {
  test("concurrent callers with an expired TikTok token refresh once and keep the rotated refresh token", async ({
    db,
  }) => {
    const demo = await seedDemo(db, sandbox.url);
    await expireInDatabase(db, demo.connections.tiktok);
    await sandboxPost(sandbox.url, "/_sandbox/requests", {}, "DELETE");
    const vaults = [vaultFor(db), vaultFor(db), vaultFor(db)];
    const opened = await Promise.all(
      vaults.flatMap((vault) => [vault.open(demo.connections.tiktok), vault.open(demo.connections.tiktok)]),
    );
    expect(new Set(opened.map((item) => item.secrets.accessToken)).size).toBe(1);
    const refreshes = (await requestsOf(sandbox.url, "tiktok.oauth.token")).filter(
      (call) => call.status === 200,
    );
    expect(refreshes).toHaveLength(1);
    await expireInDatabase(db, demo.connections.tiktok);
    const again = await vaultFor(db).open(demo.connections.tiktok);
    expect(again.secrets.accessToken).not.toBe(opened[0]?.secrets.accessToken);
    const [connection] = await db.query<{ status: string }>(
      "SELECT status FROM publisher.connections WHERE id = $1",
      [demo.connections.tiktok],
    );
    expect(connection?.status).toBe("active");
  });

  test("a Google refresh that sends no refresh token keeps the stored one", async ({ db }) => {
    const demo = await seedDemo(db, sandbox.url);
    const codec = secretsCodec(testSealer());
    const before = codec.open((await findConnection(db, demo.connections.youtube))!);
    await expireInDatabase(db, demo.connections.youtube);
    await vaultFor(db).open(demo.connections.youtube);
    const after = codec.open((await findConnection(db, demo.connections.youtube))!);
    expect(after.refreshToken).toBe(before.refreshToken);
    expect(after.accessToken).not.toBe(before.accessToken);
  });

  test("a token the platform refuses is refreshed and the call succeeds", async ({ db }) => {
    const demo = await seedDemo(db, sandbox.url);
    await sandboxPost(sandbox.url, "/_sandbox/tokens/expire", {
      platform: "tiktok",
      account: DEMO_TIKTOK.creators.public.openId,
    });
    const adapters = sandboxAdapters(sandbox.url);
    const vault = vaultFor(db);
    const { withAccessToken } = await import("../../src/connections/token-vault.ts");
    const info = await withAccessToken(vault, demo.connections.tiktok, ({ secrets }) =>
      adapters.tiktok.creatorInfo(secrets.accessToken),
    );
    expect(info.privacyLevelOptions).toContain("PUBLIC_TO_EVERYONE");
  });

  test("a revoked grant marks the connection needs_reconnect with invalid_grant", async ({ db }) => {
    const demo = await seedDemo(db, sandbox.url);
    await sandboxPost(sandbox.url, "/_sandbox/tokens/revoke", { platform: "google" });
    await expireInDatabase(db, demo.connections.youtube);
    await expect(vaultFor(db).open(demo.connections.youtube)).rejects.toMatchObject({
      reason: "CONNECTION_NEEDS_RECONNECT",
    });
    const [row] = await db.query<{ status: string; statusReason: string }>(
      `SELECT status, status_reason AS "statusReason" FROM publisher.connections WHERE id = $1`,
      [demo.connections.youtube],
    );
    expect(row).toMatchObject({
      status: "needs_reconnect",
      statusReason: expect.stringContaining("invalid_grant"),
    });
  });
});
